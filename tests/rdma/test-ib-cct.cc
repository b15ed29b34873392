/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The InfiniBand CCT reaction point (IBTA Annex A10) driven by injected BECNs, no network.
 */

#include "ns3/config.h"
#include "ns3/rdma-cc-ib-cct.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

const DataRate LINE("400Gbps");
/// A 4 KB-MTU RDMA WRITE middle packet on an IB wire: LRH 8 + BTH 12 + 4096 + ICRC 4 + VCRC 2
/// + framing 8.
const uint32_t WIRE = 4130;

class IbCctReactionPoint : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    Ptr<RdmaCcIbCct> Make()
    {
        Ptr<RdmaCcIbCct> cc = CreateObject<RdmaCcIbCct>();
        cc->Init(LINE);
        cc->OnPacketSent(WIRE);
        return cc;
    }

    /// BECNs at these times; CCTI sampled at those times (after the samples' own timer).
    std::vector<uint16_t> Drive(Ptr<RdmaCcIbCct> cc,
                                const std::vector<std::pair<Time, int>>& becns,
                                const std::vector<Time>& samples)
    {
        for (const auto& [at, n] : becns)
        {
            Simulator::Schedule(at, [cc, n = n]() {
                for (int i = 0; i < n; ++i)
                {
                    cc->OnCongestionNotification();
                }
            });
        }
        std::vector<uint16_t> out(samples.size());
        for (size_t i = 0; i < samples.size(); ++i)
        {
            Simulator::Schedule(samples[i], [cc, &out, i]() { out[i] = cc->GetCcti(); });
        }
        Simulator::Run();
        return out;
    }
};

} // namespace

TEST_F(IbCctReactionPoint, BecnsRaiseTheIndexAndTheTimerLowersItOneStepPerPeriod)
{
    Ptr<RdmaCcIbCct> cc = Make();
    EXPECT_EQ(cc->GetCcti(), 0);
    EXPECT_EQ(cc->GetRate(), LINE);
    EXPECT_EQ(cc->GetNextRateChange(), Time::Max());
    // Default CCTI_Timer 150 x 1.024 us = 153.6 us, free-running from time 0.
    const Time period = NanoSeconds(153600);
    const auto ccti = Drive(cc,
                            {{MicroSeconds(10), 3}},
                            {MicroSeconds(11),
                             period - NanoSeconds(1),
                             period,
                             period * 2,
                             period * 3,
                             period * 4,
                             period * 10});
    EXPECT_EQ(ccti, (std::vector<uint16_t>{3, 3, 2, 1, 0, 0, 0}));
}

TEST_F(IbCctReactionPoint, TheLinearTableSlowsThePacketsByAnEighthOfTheirTimePerStep)
{
    Ptr<RdmaCcIbCct> cc = Make();
    ASSERT_EQ(cc->GetTable().size(), 128u); // CCTI_Limit 127
    Simulator::Schedule(MicroSeconds(1), [cc]() {
        for (int i = 0; i < 8; ++i)
        {
            cc->OnCongestionNotification();
        }
        // CCTI 8: a delay of one packet time after each packet, half the line rate.
        EXPECT_EQ(cc->GetCcti(), 8);
        EXPECT_EQ(cc->GetInterPacketDelay(WIRE), LINE.CalculateBytesTxTime(WIRE));
        EXPECT_EQ(cc->GetRate(), DataRate("200Gbps"));
        // The next step down is the timer's next expiry.
        EXPECT_EQ(cc->GetNextRateChange(), NanoSeconds(153600));
        // Capped at CCTI_Limit: rate = line x 8 / (8 + 127).
        for (int i = 0; i < 300; ++i)
        {
            cc->OnCongestionNotification();
        }
        EXPECT_EQ(cc->GetCcti(), 127);
        EXPECT_NEAR(cc->GetRate().GetBitRate(), 400e9 * 8 / 135, 1);
    });
    Simulator::Run();
}

TEST_F(IbCctReactionPoint, IncreaseMinimumTimerAndTableAreAttributes)
{
    Config::SetDefault("ns3::RdmaCcIbCct::CctiIncrease", UintegerValue(4));
    Config::SetDefault("ns3::RdmaCcIbCct::CctiMin", UintegerValue(2));
    Config::SetDefault("ns3::RdmaCcIbCct::CctiLimit", UintegerValue(3));
    Config::SetDefault("ns3::RdmaCcIbCct::CctiTimer", UintegerValue(10)); // 10.24 us
    Config::SetDefault("ns3::RdmaCcIbCct::Cct", StringValue("0,5,10,20"));
    Config::SetDefault("ns3::RdmaCcIbCct::CctUnit", TimeValue(NanoSeconds(100)));
    Ptr<RdmaCcIbCct> cc = Make();
    EXPECT_EQ(cc->GetCcti(), 2); // starts at CCTI_Min
    // 10 x 100 ns after a packet of 4130 bytes (82.6 ns at 400G).
    EXPECT_EQ(cc->GetInterPacketDelay(WIRE), MicroSeconds(1));
    const double t = LINE.CalculateBytesTxTime(WIRE).GetSeconds();
    EXPECT_NEAR(cc->GetRate().GetBitRate(), 400e9 * t / (t + 1e-6), 1);
    const auto ccti = Drive(cc,
                            {{MicroSeconds(1), 1}, {MicroSeconds(25), 1}},
                            {MicroSeconds(2),
                             NanoSeconds(10240),
                             NanoSeconds(20480),
                             MicroSeconds(26),
                             MicroSeconds(100)});
    EXPECT_EQ(ccti, (std::vector<uint16_t>{3, 2, 2, 3, 2}));
}

TEST(IbCctDeathTest, ABadTableStopsTheRunWithTheReason)
{
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RdmaCcIbCct::Cct", StringValue("0,1,x"));
            CreateObject<RdmaCcIbCct>()->Init(LINE);
        },
        "ns3::RdmaCcIbCct::Cct: entry 2 \"x\" is not a delay");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RdmaCcIbCct::Cct", StringValue("0,1,2"));
            CreateObject<RdmaCcIbCct>()->Init(LINE);
        },
        "ns3::RdmaCcIbCct::CctiLimit 127 is past the table's last entry \\(3 entries\\)");
}
