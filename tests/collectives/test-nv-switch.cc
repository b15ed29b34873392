/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NvSwitch: the per-GPU NVLink bandwidth model. Presets; one transfer pipelines its segments
 * through egress and ingress; an incast shares the receiver's ingress, a fan-out the
 * sender's egress, each fairly; a stream delivers in order while streams interleave; a
 * congested receiver holds its senders back (their other traffic takes the egress); NVLS
 * reduction and multicast groups move their bytes once through the shared port.
 */

#include "ns3/nv-switch.h"
#include "ns3/nvlink-connection.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

Ptr<NvSwitch>
MakeSwitch(uint32_t gpus)
{
    Ptr<NvSwitch> s = CreateObject<NvSwitch>();
    // The arithmetic below counts in 64 KiB segments, two queued per source, groups too.
    s->SetAttribute("GroupSegmentBytes", UintegerValue(64 * 1024));
    s->SetGpuCount(gpus);
    return s;
}

/// Start a transfer now and record its delivery time.
void
Start(Ptr<NvSwitch> s, uint32_t stream, uint64_t bytes, Time* at)
{
    s->Transfer(stream, bytes, NvSwitch::DeliveredCallback([at]() { *at = Simulator::Now(); }));
}

double
Seconds(uint64_t bytes, Ptr<NvSwitch> s)
{
    return s->GetGpuBandwidth().CalculateBytesTxTime(bytes).GetSeconds();
}

} // namespace

TEST(NvSwitch, PresetsAreNcclsLinkFiguresTimesTheLinks)
{
    EXPECT_NEAR(NvSwitch::GetPresetBandwidth(GpuGeneration::HOPPER).GetBitRate() / 8e9,
                370.8,
                1e-6);
    EXPECT_NEAR(NvSwitch::GetPresetBandwidth(GpuGeneration::AMPERE).GetBitRate() / 8e9,
                240.0,
                1e-6);
    EXPECT_EQ(MakeSwitch(8)->GetGpuBandwidth(),
              NvSwitch::GetPresetBandwidth(GpuGeneration::HOPPER));
}

TEST(NvSwitch, ATransferAlonePipelinesItsSegmentsThroughEgressAndIngress)
{
    // 16 segments of 64 KiB: the egress sends them back to back, the ingress receives each
    // right after: 17 segment times, plus the latency.
    Ptr<NvSwitch> s = MakeSwitch(2);
    s->SetAttribute("Latency", TimeValue(NanoSeconds(300)));
    Time at;
    Start(s, s->AddStream(0, 1), 1 << 20, &at);
    Simulator::Run();
    const Time seg = s->GetGpuBandwidth().CalculateBytesTxTime(64 * 1024);
    EXPECT_EQ(at, seg * 17 + NanoSeconds(300));
    EXPECT_EQ(s->GetBytesSent(0), 1U << 20);
    EXPECT_EQ(s->GetBytesReceived(1), 1U << 20);
    EXPECT_EQ(s->GetIngressBusyTime(1), seg * 16);
    Simulator::Destroy();
}

TEST(NvSwitch, AnIncastSharesTheIngressAndAFanOutTheEgressFairly)
{
    const uint64_t bytes = 8 << 20;
    {
        // GPUs 1, 2 and 3 send 8 MiB each to GPU 0: 24 MiB through one ingress.
        Ptr<NvSwitch> s = MakeSwitch(4);
        std::vector<Time> at(4);
        for (uint32_t g = 1; g < 4; ++g)
        {
            Start(s, s->AddStream(g, 0), bytes, &at[g]);
        }
        Simulator::Run();
        for (uint32_t g = 1; g < 4; ++g)
        {
            EXPECT_NEAR(at[g].GetSeconds(), Seconds(3 * bytes, s), Seconds(3 * 64 * 1024, s))
                << "sender " << g;
        }
        Simulator::Destroy();
    }
    {
        // GPU 0 sends 8 MiB to each of 1, 2, 3: 24 MiB through one egress.
        Ptr<NvSwitch> s = MakeSwitch(4);
        std::vector<Time> at(4);
        for (uint32_t g = 1; g < 4; ++g)
        {
            Start(s, s->AddStream(0, g), bytes, &at[g]);
        }
        Simulator::Run();
        for (uint32_t g = 1; g < 4; ++g)
        {
            EXPECT_NEAR(at[g].GetSeconds(), Seconds(3 * bytes, s), Seconds(3 * 64 * 1024, s))
                << "receiver " << g;
        }
        Simulator::Destroy();
    }
}

TEST(NvSwitch, AStreamDeliversInOrderWhileStreamsInterleave)
{
    Ptr<NvSwitch> s = MakeSwitch(2);
    const uint32_t a = s->AddStream(0, 1);
    const uint32_t b = s->AddStream(0, 1);
    Time bigA;
    Time smallA;
    Time smallB;
    Start(s, a, 4 << 20, &bigA);
    Start(s, a, 1024, &smallA);
    Start(s, b, 1024, &smallB);
    Simulator::Run();
    EXPECT_LT(bigA, smallA) << "a stream's second transfer waits for its first";
    EXPECT_LT(smallB, bigA) << "another stream's transfer goes between its segments";
    Simulator::Destroy();
}

TEST(NvSwitch, ACappedStreamDeliversAtItsWritersPaceAndLeavesTheLinkToOthers)
{
    // GPU 0 writes 1 MiB to GPU 1 at a quarter of the link's rate (LL's kernels) and 1 MiB
    // to GPU 2 at the link's: the first lands after 4 link times, the second shares the
    // egress only while the first's bytes are cut and lands after about 2.
    Ptr<NvSwitch> s = MakeSwitch(3);
    s->SetAttribute("Latency", TimeValue(Time(0)));
    const double link = s->GetGpuBandwidth().GetBitRate() / 8.0;
    const uint32_t capped = s->AddStream(0, 1);
    s->SetStreamCap(capped, link / 4);
    const uint64_t bytes = 1 << 20;
    const double seg = Seconds(64 * 1024, s);
    Time slow;
    Time fast;
    Start(s, capped, bytes, &slow);
    Start(s, s->AddStream(0, 2), bytes, &fast);
    Simulator::Run();
    EXPECT_NEAR(slow.GetSeconds(), 4 * Seconds(bytes, s), seg);
    EXPECT_NEAR(fast.GetSeconds(), 2 * Seconds(bytes, s), 2 * seg);
    // Without its cap the stream runs at the link's pace again.
    s->SetStreamCap(capped, 0);
    const Time start = Simulator::Now();
    Start(s, capped, bytes, &slow);
    Simulator::Run();
    EXPECT_NEAR((slow - start).GetSeconds(), Seconds(bytes, s), 2 * seg);
    Simulator::Destroy();
}

TEST(NvSwitch, StreamsSharingAWriterShareItsRate)
{
    // One P2P CTA writes 1 MiB to GPU 1 and 1 MiB to GPU 2 at a quarter of the link's rate
    // in all: both land after about 8 link times (2 MiB at the writer's pace), not 4 each.
    // A third stream with a writer of its own at that rate lands after 4.
    Ptr<NvSwitch> s = MakeSwitch(4);
    s->SetAttribute("Latency", TimeValue(Time(0)));
    const double link = s->GetGpuBandwidth().GetBitRate() / 8.0;
    const uint32_t a = s->AddStream(0, 1);
    const uint32_t b = s->AddStream(0, 2);
    const uint32_t own = s->AddStream(0, 3);
    s->ShareWriter(b, a);
    s->SetStreamCap(b, link / 4); // the shared writer's rate, set through either stream
    s->SetStreamCap(own, link / 4);
    const uint64_t bytes = 1 << 20;
    const double seg = Seconds(64 * 1024, s);
    Time atA;
    Time atB;
    Time atOwn;
    Start(s, a, bytes, &atA);
    Start(s, b, bytes, &atB);
    Start(s, own, bytes, &atOwn);
    Simulator::Run();
    // Within two segments at the writer's pace: the streams alternate on it, the first one
    // started a turn ahead.
    const double writerSeg = 2 * 4 * seg;
    EXPECT_NEAR(atA.GetSeconds(), 8 * Seconds(bytes, s), writerSeg);
    EXPECT_NEAR(atB.GetSeconds(), 8 * Seconds(bytes, s), writerSeg);
    EXPECT_NEAR(atOwn.GetSeconds(), 4 * Seconds(bytes, s), writerSeg);
    Simulator::Destroy();
    // Streams of different GPUs have different writers.
    Ptr<NvSwitch> t = MakeSwitch(3);
    EXPECT_DEATH(t->ShareWriter(t->AddStream(0, 1), t->AddStream(1, 2)), "share a writer");
}

TEST(NvSwitch, ACongestedReceiverHoldsItsSendersBackAndTheirOtherTrafficGoesOn)
{
    // GPUs 1, 2, 3 send 8 MiB each to GPU 0 (a third of its ingress each); GPU 1 also sends
    // 8 MiB to the idle GPU 4. Held back at GPU 0, GPU 1's egress gives the rest to GPU 4:
    // about two thirds of the bandwidth while the incast lasts, not the half a blind round
    // robin would give.
    Ptr<NvSwitch> s = MakeSwitch(5);
    std::vector<Time> at(4);
    for (uint32_t g = 1; g < 4; ++g)
    {
        Start(s, s->AddStream(g, 0), 8 << 20, &at[g]);
    }
    Time side;
    Start(s, s->AddStream(1, 4), 8 << 20, &side);
    Simulator::Run();
    // GPU 4 got its 8 MiB at 2/3 of the rate: 12 MiB times.
    EXPECT_NEAR(side.GetSeconds(), Seconds(12 << 20, s), Seconds(12 << 20, s) * 0.05);
    EXPECT_NEAR(at[1].GetSeconds(), Seconds(24 << 20, s), Seconds(24 << 20, s) * 0.02);
    Simulator::Destroy();
}

TEST(NvSwitch, AConnectionsEndsCarryMessagesBothWays)
{
    Ptr<NvSwitch> s = MakeSwitch(2);
    auto [a, b] = NvLinkConnection::Connect(s, 0, 1);
    EXPECT_FALSE(a->HasSenderBuffer());
    EXPECT_EQ(a->GetLinkClass(), NcclTuner::Link::NVLINK);
    std::vector<uint32_t> atB;
    std::vector<uint32_t> atA;
    std::vector<uint32_t> doneA;
    b->SetReceiveCallback(
        CollectiveConnection::ReceiveCallback([&](uint64_t, uint32_t t) { atB.push_back(t); }));
    a->SetReceiveCallback(
        CollectiveConnection::ReceiveCallback([&](uint64_t, uint32_t t) { atA.push_back(t); }));
    a->SetSendDoneCallback(
        CollectiveConnection::SendDoneCallback([&](uint32_t t) { doneA.push_back(t); }));
    a->Send(1 << 20, 1);
    a->Send(100, 2);
    b->Send(64, 7);
    Simulator::Run();
    EXPECT_EQ(atB, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(doneA, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(atA, std::vector<uint32_t>{7});
    Simulator::Destroy();
}

TEST(NvSwitch, AReductionGroupDeliversTheCombinedBytesOnceAtTheDestination)
{
    // GPUs 1, 2, 3 and GPU 0 itself give 1 MiB each to GPU 0's reduction: every egress sends
    // its 1 MiB, GPU 0's ingress receives the combined 1 MiB once (not 3 or 4), and every
    // stream's transfer completes when the combined bytes landed: one transfer's 17 segment
    // times (the segments pipeline through the egresses, the switch and the ingress).
    Ptr<NvSwitch> s = MakeSwitch(4);
    std::vector<uint32_t> streams;
    for (uint32_t g = 1; g < 4; ++g)
    {
        streams.push_back(s->AddStream(g, 0));
    }
    s->AddReduceGroup(streams, true);
    const uint64_t bytes = 1 << 20;
    std::vector<Time> at(3);
    for (uint32_t k = 0; k < 3; ++k)
    {
        Start(s, streams[k], bytes, &at[k]);
    }
    Simulator::Run();
    const Time seg = s->GetGpuBandwidth().CalculateBytesTxTime(64 * 1024);
    for (uint32_t k = 0; k < 3; ++k)
    {
        EXPECT_EQ(at[k], seg * 17) << "stream " << k;
    }
    for (uint32_t g = 0; g < 4; ++g)
    {
        EXPECT_EQ(s->GetBytesSent(g), bytes) << "GPU " << g;
    }
    EXPECT_EQ(s->GetBytesReceived(0), bytes);
    Simulator::Destroy();
}

TEST(NvSwitch, AReductionWaitsForItsSlowestMember)
{
    // GPU 2 posts its bytes 10 us after GPU 1: the combined bytes cannot land before GPU 2's.
    Ptr<NvSwitch> s = MakeSwitch(3);
    const uint32_t a = s->AddStream(1, 0);
    const uint32_t b = s->AddStream(2, 0);
    s->AddReduceGroup({a, b}, false);
    Time atA;
    Time atB;
    Start(s, a, 1 << 20, &atA);
    Simulator::Schedule(MicroSeconds(10), [&]() { Start(s, b, 1 << 20, &atB); });
    Simulator::Run();
    const Time seg = s->GetGpuBandwidth().CalculateBytesTxTime(64 * 1024);
    EXPECT_EQ(atA, MicroSeconds(10) + seg * 17);
    EXPECT_EQ(atB, atA);
    EXPECT_EQ(s->GetBytesSent(0), 0U) << "the destination took no part";
    EXPECT_EQ(s->GetBytesReceived(0), 1U << 20);
    Simulator::Destroy();
}

TEST(NvSwitch, AMulticastGroupSendsOnceAndEveryDestinationReceives)
{
    // GPU 0 multicasts 1 MiB to GPUs 1, 2, 3 and itself: its egress sends it once, every
    // ingress receives it. A member posted late holds the whole multicast back.
    Ptr<NvSwitch> s = MakeSwitch(4);
    std::vector<uint32_t> streams;
    for (uint32_t g = 1; g < 4; ++g)
    {
        streams.push_back(s->AddStream(0, g));
    }
    s->AddMulticastGroup(streams, true);
    const uint64_t bytes = 1 << 20;
    std::vector<Time> at(3);
    Start(s, streams[0], bytes, &at[0]);
    Start(s, streams[1], bytes, &at[1]);
    Simulator::Schedule(MicroSeconds(5), [&]() { Start(s, streams[2], bytes, &at[2]); });
    Simulator::Run();
    const Time seg = s->GetGpuBandwidth().CalculateBytesTxTime(64 * 1024);
    for (uint32_t k = 0; k < 3; ++k)
    {
        EXPECT_EQ(at[k], MicroSeconds(5) + seg * 17) << "stream " << k;
    }
    EXPECT_EQ(s->GetBytesSent(0), bytes);
    for (uint32_t g = 0; g < 4; ++g)
    {
        EXPECT_EQ(s->GetBytesReceived(g), bytes) << "GPU " << g;
    }
    Simulator::Destroy();
}

TEST(NvSwitch, AnNvlsAllReduceMovesOneAndAnNthOfTheDataThroughEachPort)
{
    // n GPUs all-reduce S bytes as NCCL's NVLS does: GPU h pulls the reduction of slice h
    // from everyone (itself included) and multicasts it to everyone (itself included), chunk
    // by chunk. Each port carries S (1 + 1/n): the time is S (1 + 1/n) / B plus the
    // pipeline's fill, where a ring's would be 2 S (n - 1) / n / B.
    const uint32_t n = 8;
    const uint64_t slice = 1 << 20;
    const uint32_t chunks = 32;
    Ptr<NvSwitch> s = MakeSwitch(n);
    std::vector<std::vector<uint32_t>> up(n);
    std::vector<std::vector<uint32_t>> down(n);
    for (uint32_t h = 0; h < n; ++h)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            if (g != h)
            {
                up[h].push_back(s->AddStream(g, h));
                down[h].push_back(s->AddStream(h, g));
            }
        }
        s->AddReduceGroup(up[h], true);
        s->AddMulticastGroup(down[h], true);
    }
    uint32_t left = n * (n - 1) * chunks;
    Time end;
    for (uint32_t h = 0; h < n; ++h)
    {
        for (uint32_t c = 0; c < chunks; ++c)
        {
            for (uint32_t k = 0; k < n - 1; ++k)
            {
                // The head's multicast of a chunk follows its reduction (the last member's).
                NvSwitch::DeliveredCallback then;
                if (k == n - 2)
                {
                    then = NvSwitch::DeliveredCallback([&, h]() {
                        for (uint32_t d : down[h])
                        {
                            s->Transfer(d, slice / chunks, NvSwitch::DeliveredCallback([&]() {
                                            end = Simulator::Now();
                                            --left;
                                        }));
                        }
                    });
                }
                s->Transfer(up[h][k], slice / chunks, then);
            }
        }
    }
    Simulator::Run();
    EXPECT_EQ(left, 0U);
    const double bound = Seconds(slice * (n + 1), s);
    EXPECT_GE(end.GetSeconds(), bound);
    EXPECT_LE(end.GetSeconds(), bound * 1.08);
    for (uint32_t g = 0; g < n; ++g)
    {
        EXPECT_EQ(s->GetBytesSent(g), slice * (n + 1)) << "GPU " << g;
        EXPECT_EQ(s->GetBytesReceived(g), slice * (n + 1)) << "GPU " << g;
    }
    Simulator::Destroy();
}

TEST(NvSwitchDeathTest, AGroupOfStreamsThatDoNotMeetIsRefused)
{
    Ptr<NvSwitch> s = MakeSwitch(3);
    const uint32_t a = s->AddStream(1, 0);
    const uint32_t b = s->AddStream(1, 2);
    EXPECT_DEATH(s->AddReduceGroup({a, b}, false), "cannot join an NVLS group");
    EXPECT_DEATH(s->AddMulticastGroup({a, s->AddStream(1, 0)}, false), "cannot join an NVLS group");
}
