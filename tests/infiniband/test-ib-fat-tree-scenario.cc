/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Permutation traffic on a k=8 InfiniBand fat-tree (128 hosts, 400G, 2 m cables): with ftree
// (D-mod-K) routing a shift permutation whose flows all leave their pod runs at full bisection
// bandwidth; random permutations collide on static routes and get less; neither loses a packet.

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

const uint64_t RATE = 400000000000ULL; // NDR 4x
const uint32_t K = 8;
// 256 KiB per flow (64 packets): long enough for a steady middle, short enough for the suite.
const uint64_t BYTES = 256 * 1024;

/// Data packets one port started: when, and how long they took on the wire.
struct PortLog
{
    Ptr<IbNetDevice> port;
    std::vector<std::pair<Time, Time>> sent;
};

void
Logged(PortLog* log, Ptr<const Packet> p)
{
    if (p->GetSize() > 100) // data, not ACKs
    {
        log->sent.emplace_back(Simulator::Now(), log->port->GetTxTime(p->GetSize()));
    }
}

/// What one permutation run measured.
struct Result
{
    double steady;     //!< receiver links' busy fraction while every flow was running
    double completion; //!< bytes delivered over the time until the last flow ended, / line rate
    uint64_t overruns;
    uint64_t retransmissions;
    uint32_t maxFlowsPerLink; //!< what the routing predicts
};

/// Host i sends to host (i + shift) mod n.
std::vector<uint32_t>
ShiftDestinations(uint32_t n, uint32_t shift)
{
    std::vector<uint32_t> dst(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        dst[i] = (i + shift) % n;
    }
    return dst;
}

/// The (source, destination) pairs of a permutation.
std::vector<std::pair<uint32_t, uint32_t>>
Flows(const std::vector<uint32_t>& dst)
{
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    for (uint32_t i = 0; i < dst.size(); ++i)
    {
        flows.emplace_back(i, dst[i]);
    }
    return flows;
}

Result
RunPermutation(const std::vector<uint32_t>& dst, IbRouting::Engine engine)
{
    FatTreeBuilder builder(K);
    // 2 m cables (10 ns): the default 64 KB per VL covers the credit round trip at 400G.
    builder.SetHostLinkRate(RATE).SetFabricLinkRate(RATE).SetLinkDelay(NanoSeconds(10));
    const FabricTopology topo = builder.Build();
    const uint32_t n = topo.GetNHosts();
    IbFabricHelper fabric;
    fabric.SetRoutingEngine(engine);
    fabric.Build(topo, EcmpRouteTable(topo));

    Result r{};
    r.maxFlowsPerLink = fabric.GetRouting()->GetMaxFlowsPerLink(Flows(dst));

    // The last hop of every host: its edge switch's port.
    std::vector<PortLog> logs(n);
    for (uint32_t h = 0; h < n; ++h)
    {
        Ptr<IbNetDevice> hca = fabric.GetHca(h);
        logs[h].port = DynamicCast<IbChannel>(hca->GetChannel())->GetPeer(hca);
        logs[h].port->TraceConnectWithoutContext("Tx", MakeBoundCallback(&Logged, &logs[h]));
    }
    uint64_t received = 0;
    Time last;
    for (uint32_t i = 0; i < n; ++i)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(i),
                                                  fabric.GetHostAddress(i),
                                                  fabric.GetEngine(dst[i]),
                                                  fabric.GetHostAddress(dst[i]));
        peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>([&](uint64_t b, uint32_t) {
            received += b;
            last = Simulator::Now();
        }));
        qp->PostWrite(BYTES, true, i, i);
    }
    Simulator::Run();
    EXPECT_EQ(received, n * BYTES);
    r.overruns = fabric.GetCreditOverruns();
    r.retransmissions = fabric.GetRetransmissions();
    EXPECT_EQ(fabric.GetUnroutable(), 0u);

    // Steady part: from the moment every receiver link carried its first data packet to the
    // moment the first one carried its last.
    Time from;
    Time to = Time::Max();
    for (const PortLog& log : logs)
    {
        from = std::max(from, log.sent.front().first);
        to = std::min(to, log.sent.back().first);
    }
    Time busy;
    for (const PortLog& log : logs)
    {
        for (const auto& [at, tx] : log.sent)
        {
            if (at >= from && at < to)
            {
                busy += tx;
            }
        }
    }
    r.steady = busy.GetSeconds() / ((to - from).GetSeconds() * n);
    r.completion = 8.0 * received / (last.GetSeconds() * RATE * n);
    Simulator::Destroy();
    return r;
}

class IbFatTreeScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(IbFatTreeScenario, FtreeRunsAShiftPermutationAtFullBisection)
{
    // Shift by 20: every flow leaves its pod (16 hosts per pod), crossing the core.
    const uint32_t n = K * K * K / 4;
    const Result r = RunPermutation(ShiftDestinations(n, 20), IbRouting::FTREE);
    RecordProperty("shift_steady", std::to_string(r.steady));
    RecordProperty("shift_completion", std::to_string(r.completion));
    std::cout << "ftree shift-20: receiver links busy " << r.steady * 100
              << "% of the steady part, " << r.completion * 100
              << "% of line rate to the last completion\n";
    EXPECT_EQ(r.maxFlowsPerLink, 1u);
    EXPECT_EQ(r.overruns, 0u);
    EXPECT_GE(r.steady, 0.95);
}

TEST_F(IbFatTreeScenario, MinhopSlowsTheShiftItsRoutesCollideOn)
{
    // minhop's worst shift among those that leave the pod: the routing predicts the
    // collision, and the run shows it.
    FatTreeBuilder builder(K);
    const FabricTopology topo = builder.Build();
    Ptr<IbRouting> minhop = CreateObject<IbRouting>();
    minhop->Compute(topo);
    const uint32_t n = builder.GetNHosts();
    uint32_t worstShift = 16;
    uint32_t worst = 0;
    for (uint32_t shift = 16; shift <= n - 16; ++shift)
    {
        const uint32_t most = minhop->GetMaxFlowsPerLink(Flows(ShiftDestinations(n, shift)));
        if (most > worst)
        {
            worst = most;
            worstShift = shift;
        }
    }
    const Result r = RunPermutation(ShiftDestinations(n, worstShift), IbRouting::MINHOP);
    RecordProperty("minhop_shift", std::to_string(worstShift));
    RecordProperty("minhop_shift_steady", std::to_string(r.steady));
    std::cout << "minhop shift-" << worstShift << ": up to " << r.maxFlowsPerLink
              << " flows share a link; receiver links busy " << r.steady * 100
              << "% of the steady part, " << r.completion * 100
              << "% of line rate to the last completion\n";
    EXPECT_GT(r.maxFlowsPerLink, 1u);
    EXPECT_EQ(r.overruns, 0u);
    EXPECT_LT(r.steady, 0.9);
}

TEST_F(IbFatTreeScenario, AdaptiveRoutingSpreadsTheShiftMinhopCollidesOn)
{
    // The same worst minhop shift with adaptive routing: each new flowlet takes the least
    // loaded of its min-hop ports, so the flows that collide on the LFT's ports spread out
    // upwards. Downwards a destination has one path, so flows that met at a core switch
    // still share its link to the pod: better than static, below ftree's full bisection.
    const uint32_t n = K * K * K / 4;
    const Result staticRoutes = RunPermutation(ShiftDestinations(n, 16), IbRouting::MINHOP);
    Config::SetDefault("ns3::IbSwitch::AdaptiveRouting", BooleanValue(true));
    const Result adaptive = RunPermutation(ShiftDestinations(n, 16), IbRouting::MINHOP);
    RecordProperty("minhop_shift16_static", std::to_string(staticRoutes.steady));
    RecordProperty("minhop_shift16_adaptive", std::to_string(adaptive.steady));
    std::cout << "minhop shift-16: receiver links busy " << staticRoutes.steady * 100
              << "% with static routes, " << adaptive.steady * 100 << "% with adaptive routing ("
              << adaptive.completion * 100 << "% of line rate to the last completion)\n";
    EXPECT_EQ(adaptive.overruns, 0u);
    EXPECT_EQ(adaptive.retransmissions, 0u) << "a flowlet overtook its predecessor";
    EXPECT_GT(adaptive.steady, 1.5 * staticRoutes.steady);
}

TEST_F(IbFatTreeScenario, RandomPermutationsCollideOnStaticRoutesAndStayLossless)
{
    const uint32_t n = K * K * K / 4;
    double worst = 1;
    for (uint32_t seed : {1u, 2u, 3u})
    {
        SCOPED_TRACE("seed " + std::to_string(seed));
        // A random derangement: nobody sends to itself.
        std::vector<uint32_t> dst(n);
        std::mt19937 rng(seed);
        do
        {
            std::iota(dst.begin(), dst.end(), 0);
            std::shuffle(dst.begin(), dst.end(), rng);
        } while ([&dst] {
            for (uint32_t i = 0; i < dst.size(); ++i)
            {
                if (dst[i] == i)
                {
                    return true;
                }
            }
            return false;
        }());
        const Result r = RunPermutation(dst, IbRouting::FTREE);
        RecordProperty("random" + std::to_string(seed) + "_steady", std::to_string(r.steady));
        RecordProperty("random" + std::to_string(seed) + "_completion",
                       std::to_string(r.completion));
        std::cout << "ftree random permutation (seed " << seed << "): receiver links busy "
                  << r.steady * 100 << "% of the steady part, " << r.completion * 100
                  << "% of line rate to the last completion; up to " << r.maxFlowsPerLink
                  << " flows share a link\n";
        EXPECT_EQ(r.overruns, 0u);
        EXPECT_GT(r.maxFlowsPerLink, 1u);
        worst = std::min(worst, r.completion);
    }
    // Static routing of random permutations: well under full bisection (Hoefler et al.,
    // Cluster 2008, measured 55-60% effective bisection bandwidth on real fat-trees).
    EXPECT_LT(worst, 0.9);
}
