/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PFC timing on one cable between two RoceNetDevices: A has a backlog of 4096-byte-payload
 * frames, B pauses A with SendPfc. Checked against numbers worked out by hand from
 * IEEE 802.1Qbb / 802.3 Annex 31B:
 *   - one pause quantum is 512 bit times at the link rate: 0xFFFF quanta last 335.5392 us at
 *     100 Gb/s and 1.3421568 ms at 25 Gb/s, 0x0100 quanta 1.31072 us at 100 Gb/s;
 *   - XON (quanta 0) resumes at once; a pause that arrives while paused restarts the timer;
 *   - the frame on the wire when the pause takes effect is finished, the next frame of that
 *     priority starts only when the pause ends; other priorities keep the link busy;
 *   - with PauseResponseTime negative, a 100 Gb/s port acts 201728 bit times (2.01728 us)
 *     after the pause frame arrived.
 * A frame of L bytes occupies the wire for (L + 24) x 8 / rate (preamble+SFD 8, FCS 4,
 * IFG 12; IEEE 802.3 clause 4.4.2), so the data frame (14 + 20 + 4096 = 4130 bytes) takes
 * 332.32 ns at 100 Gb/s and the PFC frame (60 bytes) 6.72 ns.
 * Time has a 1 ns resolution here: every exact instant is allowed 2 ns of rounding.
 */

#include "rocev2-test-util.h"

#include "ns3/config.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr double TOL_NS = 2.0;             //!< rounding of Time to 1 ns, a few steps
constexpr double DELAY_NS = 1000.0;        //!< cable delay used throughout
constexpr uint32_t PAYLOAD = 4096;         //!< bytes after the IPv4 header
constexpr uint32_t FRAME = 14 + 20 + 4096; //!< Ethernet + IPv4 + payload
constexpr uint32_t PFC_FRAME = 60;         //!< 14 + 46, no FCS in the packet
constexpr uint32_t WIRE_EXTRA = 8 + 4 + 12;
constexpr uint8_t DSCP_P3 = 26; //!< AF31: priority 3 (DSCP >> 3), RoCE's lossless class
constexpr uint8_t DSCP_P1 = 8;  //!< CS1: priority 1

/// Seconds of wire time of a frame of this many bytes at a rate, in ns.
double
WireNs(uint32_t bytes, double bps)
{
    return (bytes + WIRE_EXTRA) * 8.0 / bps * 1e9;
}

/// DSCP of a frame (Ethernet 14 bytes, then IPv4: byte 1 holds DSCP << 2 | ECN); 0xFF if
/// the frame is not IPv4 (a PFC frame).
uint8_t
DscpOf(Ptr<const Packet> p)
{
    uint8_t b[16];
    if (p->CopyData(b, 16) < 16 || b[12] != 0x08 || b[13] != 0x00)
    {
        return 0xFF;
    }
    return b[15] >> 2;
}

struct TxRecord
{
    double ns;
    uint8_t dscp;
};

struct RxRecord
{
    double ns;
    uint32_t size;
    uint8_t dscp;
};

struct PauseRecord
{
    double ns;
    uint8_t priority;
    bool paused;
};

double
NowNs()
{
    return static_cast<double>(Simulator::Now().GetNanoSeconds());
}

class PfcTimingTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    /// A (data sender, pause receiver) and B (pause sender) on a 1 us cable at this rate.
    void Build(const std::string& rate, Time responseTime = Seconds(0))
    {
        m_bps = DataRate(rate).GetBitRate();
        const rocev2test::TwoPorts t = rocev2test::ConnectTwoPorts(NanoSeconds(DELAY_NS), rate);
        m_a = t.a;
        m_b = t.b;
        m_a->SetAttribute("PauseResponseTime", TimeValue(responseTime));
        m_b->SetAttribute("PauseResponseTime", TimeValue(responseTime));

        m_a->TraceConnectWithoutContext("MacTx", MakeCallback(&PfcTimingTest::OnTx, this));
        m_a->TraceConnectWithoutContext("PauseState",
                                        MakeCallback(&PfcTimingTest::OnPauseState, this));
        m_a->TraceConnectWithoutContext("PfcRx", MakeCallback(&PfcTimingTest::OnPfcRx, this));
        m_b->SetRxHandler(MakeCallback(&PfcTimingTest::OnRx, this));
    }

    void Backlog(uint32_t n, uint8_t dscp, uint8_t priority)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            m_a->Enqueue(rocev2test::MakeIpv4Frame(dscp), priority);
        }
    }

    /// B sends a PFC frame for priority 3 at this time.
    void PfcAt(double ns, uint16_t quanta)
    {
        Simulator::Schedule(NanoSeconds(ns), &RoceNetDevice::SendPfc, m_b, uint8_t{3}, quanta);
    }

    void OnTx(Ptr<const Packet> p)
    {
        const uint8_t dscp = DscpOf(p);
        if (dscp != 0xFF)
        {
            m_tx.push_back({NowNs(), dscp});
        }
    }

    void OnRx(Ptr<RoceNetDevice> /*port*/, Ptr<Packet> p, uint8_t /*ttlDebt*/)
    {
        m_rx.push_back({NowNs(), p->GetSize(), DscpOf(p)});
    }

    void OnPauseState(uint8_t priority, bool paused)
    {
        m_pause.push_back({NowNs(), priority, paused});
    }

    void OnPfcRx(uint8_t /*priority*/, uint16_t /*quanta*/)
    {
        m_pfcRx.push_back(NowNs());
    }

    /// Start times of A's frames with this DSCP.
    std::vector<double> Starts(uint8_t dscp) const
    {
        std::vector<double> s;
        for (const auto& t : m_tx)
        {
            if (t.dscp == dscp)
            {
                s.push_back(t.ns);
            }
        }
        return s;
    }

    /// Checks the one pause of priority 3 that starts at `pauseAt` and lasts `durationNs`,
    /// against A's backlog of priority-3 frames: the frame on the wire is finished at full
    /// length, the next one starts when the pause ends (within one frame time), none starts
    /// during it.
    void CheckPauseOfBacklog(double pauseAt, double durationNs, uint32_t backlog)
    {
        const double frameNs = WireNs(FRAME, m_bps);
        const double resumeAt = pauseAt + durationNs;
        ASSERT_EQ(m_pause.size(), 2u);
        EXPECT_EQ(m_pause[0].priority, 3);
        EXPECT_TRUE(m_pause[0].paused);
        EXPECT_NEAR(m_pause[0].ns, pauseAt, TOL_NS);
        EXPECT_EQ(m_pause[1].priority, 3);
        EXPECT_FALSE(m_pause[1].paused);
        EXPECT_NEAR(m_pause[1].ns - m_pause[0].ns, durationNs, TOL_NS);
        EXPECT_NEAR(m_a->GetPausedTime(3).GetNanoSeconds(), durationNs, TOL_NS);

        const std::vector<double> s = Starts(DSCP_P3);
        ASSERT_EQ(s.size(), backlog);
        // The frame on the wire when the pause began: the last one started before it.
        size_t k = 0;
        while (k + 1 < s.size() && s[k + 1] <= pauseAt)
        {
            ++k;
        }
        ASSERT_LT(k + 1, s.size());
        // Set-up check: the pause must land inside frame k, not between frames.
        ASSERT_LT(s[k], pauseAt - TOL_NS);
        ASSERT_GT(s[k] + frameNs, pauseAt + TOL_NS);
        // Before the pause the frames go back to back from t = 0 (each frame time is
        // rounded to whole ns, so allow 1 ns more per frame).
        for (size_t i = 0; i <= k; ++i)
        {
            EXPECT_NEAR(s[i], i * frameNs, TOL_NS + i) << "frame " << i;
        }
        // The next frame waits for the end of the pause, and then goes at once.
        EXPECT_GE(s[k + 1], resumeAt - TOL_NS);
        EXPECT_LT(s[k + 1], resumeAt + frameNs);
        EXPECT_NEAR(s[k + 1], resumeAt, TOL_NS);

        // Every frame arrives whole at B, each one frame time + delay after it started:
        // the frame in flight was not cut.
        ASSERT_EQ(m_rx.size(), backlog);
        for (size_t i = 0; i < m_rx.size(); ++i)
        {
            EXPECT_EQ(m_rx[i].size, FRAME) << "frame " << i;
            EXPECT_NEAR(m_rx[i].ns, s[i] + frameNs + DELAY_NS, TOL_NS) << "frame " << i;
        }
    }

    uint64_t m_bps{0};
    Ptr<RoceNetDevice> m_a;
    Ptr<RoceNetDevice> m_b;
    std::vector<TxRecord> m_tx;
    std::vector<RxRecord> m_rx;
    std::vector<PauseRecord> m_pause;
    std::vector<double> m_pfcRx;
};

/// (rate, quanta, pause length in ns worked out by hand as quanta x 512 / rate)
struct PauseCase
{
    const char* rate;
    uint16_t quanta;
    double expectedNs;
};

class PfcPauseLengthTest : public PfcTimingTest, public ::testing::WithParamInterface<PauseCase>
{
};

void
PrintTo(const PauseCase& c, std::ostream* os)
{
    *os << c.rate << ", quanta " << c.quanta << ", " << c.expectedNs << " ns";
}

std::string
PauseCaseName(const ::testing::TestParamInfo<PauseCase>& info)
{
    std::string name = std::string(info.param.rate) + "_quanta" + std::to_string(info.param.quanta);
    return name;
}

} // namespace

TEST_P(PfcPauseLengthTest, PausesForQuantaTimes512BitTimesAndNeverCutsTheFrameInFlight)
{
    const PauseCase c = GetParam();
    Build(c.rate);
    const uint32_t backlog = 12;
    Backlog(backlog, DSCP_P3, 3);
    PfcAt(0, c.quanta);
    Simulator::Run();

    // The PFC frame reaches A one PFC frame time + the cable delay after B sent it.
    const double arrival = WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    ASSERT_EQ(m_pfcRx.size(), 1u);
    EXPECT_NEAR(m_pfcRx[0], arrival, TOL_NS);
    // With PauseResponseTime 0 the pause starts on arrival.
    CheckPauseOfBacklog(arrival, c.expectedNs, backlog);
    EXPECT_FALSE(m_a->IsPaused(3));
}

INSTANTIATE_TEST_SUITE_P(PfcTiming,
                         PfcPauseLengthTest,
                         ::testing::Values(
                             // 65535 x 512 / 100e9 s = 335.5392 us
                             PauseCase{"100Gbps", 0xFFFF, 335539.2},
                             // 65535 x 512 / 25e9 s = 1.3421568 ms
                             PauseCase{"25Gbps", 0xFFFF, 1342156.8},
                             // 256 x 512 / 100e9 s = 1.31072 us
                             PauseCase{"100Gbps", 0x0100, 1310.72}),
                         PauseCaseName);

TEST_F(PfcTimingTest, XonResumesAtOnce)
{
    Build("100Gbps");
    const uint32_t backlog = 12;
    Backlog(backlog, DSCP_P3, 3);
    PfcAt(0, 0xFFFF);
    PfcAt(10000, 0); // XON 10 us later, long before the 335.5 us pause would end
    Simulator::Run();

    const double pfcNs = WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    ASSERT_EQ(m_pfcRx.size(), 2u);
    EXPECT_NEAR(m_pfcRx[1], 10000 + pfcNs, TOL_NS);
    // Paused from the XOFF's arrival to the XON's: exactly 10 us.
    CheckPauseOfBacklog(pfcNs, 10000, backlog);
}

TEST_F(PfcTimingTest, XonWhenNotPausedChangesNothing)
{
    Build("100Gbps");
    Backlog(4, DSCP_P3, 3);
    PfcAt(0, 0);
    Simulator::Run();
    EXPECT_TRUE(m_pause.empty());
    const std::vector<double> s = Starts(DSCP_P3);
    ASSERT_EQ(s.size(), 4u);
    for (size_t i = 0; i < s.size(); ++i)
    {
        EXPECT_NEAR(s[i], i * WireNs(FRAME, m_bps), TOL_NS + i);
    }
    EXPECT_EQ(m_a->GetPausedTime(3), Time(0));
}

TEST_F(PfcTimingTest, PauseArrivingWhilePausedRestartsTheTimer)
{
    Build("100Gbps");
    const uint32_t backlog = 12;
    Backlog(backlog, DSCP_P3, 3);
    // 0x0100 quanta = 1310.72 ns; the second XOFF arrives 1 us after the first, while the
    // first still holds, so the pause ends 1310.72 ns after the second: 2310.72 ns in all.
    PfcAt(0, 0x0100);
    PfcAt(1000, 0x0100);
    Simulator::Run();
    const double arrival = WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    ASSERT_EQ(m_pfcRx.size(), 2u);
    CheckPauseOfBacklog(arrival, 1000 + 1310.72, backlog);
}

TEST_F(PfcTimingTest, OtherPrioritiesKeepTheLinkBusyWhileOneIsPaused)
{
    Build("100Gbps");
    Backlog(10, DSCP_P3, 3);
    Backlog(100, DSCP_P1, 1);
    // 0x1000 quanta = 4096 x 512 / 100e9 s = 20.97152 us, about 63 frame times.
    PfcAt(0, 0x1000);
    Simulator::Run();

    const double frameNs = WireNs(FRAME, m_bps);
    const double pauseAt = WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    const double resumeAt = pauseAt + 20971.52;
    ASSERT_EQ(m_pause.size(), 2u);
    EXPECT_NEAR(m_pause[0].ns, pauseAt, TOL_NS);
    EXPECT_NEAR(m_pause[1].ns, resumeAt, TOL_NS);

    // No priority-3 frame starts during the pause; priority-1 frames fill it back to back.
    for (double t : Starts(DSCP_P3))
    {
        EXPECT_FALSE(t > pauseAt + TOL_NS && t < resumeAt - TOL_NS) << "priority 3 at " << t;
    }
    std::vector<double> during;
    for (const auto& t : m_tx)
    {
        if (t.ns >= pauseAt && t.ns < resumeAt - TOL_NS)
        {
            EXPECT_EQ(t.dscp, DSCP_P1) << "at " << t.ns;
            during.push_back(t.ns);
        }
    }
    // The link idles for less than one frame time after the pause begins and before it ends,
    // and never in between: floor(20971.52 / 332.32) = 63 frames start within the pause.
    ASSERT_GE(during.size(), 62u);
    EXPECT_LT(during.front() - pauseAt, frameNs);
    EXPECT_LE(resumeAt - during.back(), frameNs + TOL_NS);
    for (size_t i = 1; i < during.size(); ++i)
    {
        EXPECT_NEAR(during[i] - during[i - 1], frameNs, TOL_NS) << "gap before frame " << i;
    }
    // Everything arrives, nothing is cut.
    ASSERT_EQ(m_rx.size(), 110u);
    for (const auto& r : m_rx)
    {
        EXPECT_EQ(r.size, FRAME);
    }
    // Priority 1 was never paused.
    EXPECT_EQ(m_a->GetPausedTime(1), Time(0));
}

TEST_F(PfcTimingTest, PausedTimeAccumulatesAndCountsThePauseInProgress)
{
    Build("100Gbps");
    Backlog(40, DSCP_P3, 3);
    // Two separate pauses of 0x0100 quanta (1310.72 ns each), 5 us apart.
    PfcAt(0, 0x0100);
    PfcAt(5000, 0x0100);
    const double secondAt = 5000 + WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    Time midSecond;
    bool pausedMid = false;
    Time afterFirst;
    Simulator::Schedule(NanoSeconds(4000), [&]() { afterFirst = m_a->GetPausedTime(3); });
    Simulator::Schedule(NanoSeconds(std::llround(secondAt + 500)), [&]() {
        midSecond = m_a->GetPausedTime(3);
        pausedMid = m_a->IsPaused(3);
    });
    Simulator::Run();

    EXPECT_NEAR(afterFirst.GetNanoSeconds(), 1310.72, TOL_NS);
    EXPECT_TRUE(pausedMid);
    EXPECT_NEAR(midSecond.GetNanoSeconds(), 1310.72 + 500, TOL_NS);
    EXPECT_NEAR(m_a->GetPausedTime(3).GetNanoSeconds(), 2 * 1310.72, TOL_NS);
    EXPECT_EQ(m_a->GetPausedTime(0), Time(0));
    ASSERT_EQ(m_pause.size(), 4u);
    EXPECT_NEAR(m_pause[2].ns, secondAt, TOL_NS);
    EXPECT_NEAR(m_pause[3].ns, secondAt + 1310.72, TOL_NS);
}

TEST_F(PfcTimingTest, NegativeResponseTimeActsAfterTheAnnex31BDelay)
{
    Build("100Gbps", NanoSeconds(-1));
    // IEEE 802.3 Annex 31B: 201728 bit times for 100 Gb/s = 2.01728 us.
    EXPECT_NEAR(m_a->GetPauseResponseTime().GetNanoSeconds(), 2017.28, 1.0);
    const uint32_t backlog = 20;
    Backlog(backlog, DSCP_P3, 3);
    PfcAt(0, 0xFFFF);
    Simulator::Run();

    const double arrival = WireNs(PFC_FRAME, m_bps) + DELAY_NS;
    ASSERT_EQ(m_pfcRx.size(), 1u);
    EXPECT_NEAR(m_pfcRx[0], arrival, TOL_NS);
    ASSERT_FALSE(m_pause.empty());
    EXPECT_NEAR(m_pause[0].ns - m_pfcRx[0], 2017.28, TOL_NS);
    // Frames keep leaving while the port has not yet acted: 2017.28 / 332.32 = 6.07, so
    // 6 or 7 frames start between the arrival and the pause.
    uint32_t inWindow = 0;
    for (double t : Starts(DSCP_P3))
    {
        inWindow += (t > arrival && t < arrival + 2017.28) ? 1 : 0;
    }
    EXPECT_GE(inWindow, 6u);
    EXPECT_LE(inWindow, 7u);
    CheckPauseOfBacklog(arrival + 2017.28, 335539.2, backlog);
}

TEST_F(PfcTimingTest, ZeroResponseTimeMeansActingOnArrival)
{
    // 0 is a valid response time (an ideal port), not the "negative = Annex 31B" default.
    Build("100Gbps", Seconds(0));
    EXPECT_EQ(m_a->GetPauseResponseTime(), Time(0));
}

TEST_F(PfcTimingTest, StandardResponseTimeAt25G)
{
    Build("25Gbps", NanoSeconds(-1));
    // IEEE 802.3 Annex 31B: 40960 bit times for 25 Gb/s = 1.6384 us.
    EXPECT_NEAR(m_a->GetPauseResponseTime().GetNanoSeconds(), 1638.4, 1.0);
    Build("25Gbps", NanoSeconds(700));
    EXPECT_EQ(m_a->GetPauseResponseTime(), NanoSeconds(700));
}

TEST_F(PfcTimingTest, PauseForAPriorityWithoutPfcIsIgnored)
{
    // 802.1Qbb: only PFC-enabled priorities obey PFC frames. With PFC off on priority 3 at
    // A, B's XOFF for 3 arrives (and is counted) but A keeps sending.
    Build("100Gbps");
    m_a->SetAttribute("PfcEnabled", UintegerValue(0));
    PfcAt(0, 0xFFFF);
    bool pausedAfter = true;
    Simulator::Schedule(MicroSeconds(5),
                        [this, &pausedAfter]() { pausedAfter = m_a->IsPaused(3); });
    Simulator::Run();
    EXPECT_EQ(m_pfcRx.size(), 1u);
    EXPECT_FALSE(pausedAfter);
}
