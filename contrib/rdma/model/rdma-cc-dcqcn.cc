/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcDcqcn");
NS_OBJECT_ENSURE_REGISTERED(RdmaCcDcqcn);

// The attribute defaults are the NVIDIA ConnectX firmware's (NVIDIA DOCA "DCQCN CC
// Parameters"; shared/reference/rocev2-pfc-dcqcn.md 1.2).
TypeId
RdmaCcDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcDcqcn")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("Rdma")
            .AddConstructor<RdmaCcDcqcn>()
            // dce_tcp_g = 1019: alpha <- (1019/1024) alpha + 5/1024.
            .AddAttribute("G",
                          "Gain g of the alpha update",
                          DoubleValue(5.0 / 1024),
                          MakeDoubleAccessor(&RdmaCcDcqcn::m_g),
                          MakeDoubleChecker<double>(0, 1))
            // dce_tcp_rtt = 1 us.
            .AddAttribute("AlphaUpdateInterval",
                          "Period of the alpha timer",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RdmaCcDcqcn::m_alphaInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            // initial_alpha_value = 1023 (of 1023).
            .AddAttribute("InitialAlpha",
                          "alpha before the first CNP",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaCcDcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            // rpg_time_reset = 300 us.
            .AddAttribute("RateIncreaseTimer",
                          "Period T of the rate-increase timer",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&RdmaCcDcqcn::m_increaseTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            // rpg_byte_reset = 32767.
            .AddAttribute("ByteCounter",
                          "Bytes B between byte-counter increase events (0 = off)",
                          UintegerValue(32767),
                          MakeUintegerAccessor(&RdmaCcDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            // rpg_threshold = 1.
            .AddAttribute("F",
                          "Fast-recovery stages before additive increase",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaCcDcqcn::m_f),
                          MakeUintegerChecker<uint32_t>())
            // rpg_ai_rate = 5 Mb/s.
            .AddAttribute("Rai",
                          "Additive increase step of the target rate",
                          DataRateValue(DataRate("5Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_rai),
                          MakeDataRateChecker())
            // rpg_hai_rate = 50 Mb/s.
            .AddAttribute("Rhai",
                          "Hyper increase step of the target rate",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_rhai),
                          MakeDataRateChecker())
            // rate_reduce_monitor_period = 4 us.
            .AddAttribute("RateDecreaseInterval",
                          "At most one rate cut per this interval (0 = every CNP)",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaCcDcqcn::m_decreaseInterval),
                          MakeTimeChecker(Time(0)))
            // rpg_min_rate = 1 Mb/s.
            .AddAttribute("MinRate",
                          "The rate is never cut below this",
                          DataRateValue(DataRate("1Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_minRate),
                          MakeDataRateChecker())
            // rpg_min_dec_fac = 50 %.
            .AddAttribute("MaxCutFraction",
                          "Largest fraction of the rate one cut removes",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RdmaCcDcqcn::m_maxCut),
                          MakeDoubleChecker<double>(0, 1))
            // clamp_tgt_rate = 0 with clamp_tgt_rate_after_time_inc = 1: the target follows
            // the current rate only after a timer increase (the HPCC artifact's
            // CheckRateDecreaseMlx does the same with EcnClampTgtRate 0).
            .AddAttribute("ClampTargetRate",
                          "Set Rt <- Rc on every cut (the paper); off: only when a timer "
                          "increase happened since the previous cut (ConnectX)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaCcDcqcn::m_clampTargetRate),
                          MakeBooleanChecker());
    return tid;
}

RdmaCcDcqcn::RdmaCcDcqcn() = default;

bool
RdmaCcDcqcn::ApplyPreset(const std::string& name)
{
    struct Preset
    {
        double g;
        Time alpha;
        Time timer;
        uint64_t bytes;
        uint32_t f;
        const char* rai;
        const char* rhai;
        Time decrease;
        const char* minRate;
        Time cnpInterval;
        bool clamp;
    };

    Preset p;
    if (name == "paper")
    {
        // Zhu et al. 2015 section 5 (40G tuned): g 1/256, 55 us timers, B 10 MB and F 5
        // (unverified against the PDF), Rai 40 Mb/s, Rhai as ns3-rdma's 200 Mb/s; the NP
        // sends at most one CNP per 50 us and the RP cuts on every CNP.
        p = {1.0 / 256,
             MicroSeconds(55),
             MicroSeconds(55),
             10 * 1000 * 1000,
             5,
             "40Mbps",
             "200Mbps",
             Time(0),
             "10Mbps",
             MicroSeconds(50),
             true};
    }
    else if (name == "mlx")
    {
        // NVIDIA ConnectX firmware defaults (DOCA DCQCN parameters; mlxconfig
        // MIN_TIME_BETWEEN_CNPS = 2 us).
        p = {5.0 / 1024,
             MicroSeconds(1),
             MicroSeconds(300),
             32767,
             1,
             "5Mbps",
             "50Mbps",
             MicroSeconds(4),
             "1Mbps",
             MicroSeconds(2),
             false};
    }
    else if (name == "hpcc")
    {
        // HPCC artifact run.py --cc dcqcn at 100G: alpha 1 us, decrease 4 us, increase timer
        // 300 us, no byte counter, g 1/256, F 1, Rai 5*bw/25 = 20 Mb/s, Rhai 200 Mb/s, min
        // rate 1 Gb/s; its NP marks every ACK (no CNP pacing).
        p = {1.0 / 256,
             MicroSeconds(1),
             MicroSeconds(300),
             0,
             1,
             "20Mbps",
             "200Mbps",
             MicroSeconds(4),
             "1000Mbps",
             Time(0),
             false};
    }
    else
    {
        return false;
    }
    Config::SetDefault("ns3::RdmaCcDcqcn::G", DoubleValue(p.g));
    Config::SetDefault("ns3::RdmaCcDcqcn::AlphaUpdateInterval", TimeValue(p.alpha));
    Config::SetDefault("ns3::RdmaCcDcqcn::RateIncreaseTimer", TimeValue(p.timer));
    Config::SetDefault("ns3::RdmaCcDcqcn::ByteCounter", UintegerValue(p.bytes));
    Config::SetDefault("ns3::RdmaCcDcqcn::F", UintegerValue(p.f));
    Config::SetDefault("ns3::RdmaCcDcqcn::Rai", DataRateValue(DataRate(p.rai)));
    Config::SetDefault("ns3::RdmaCcDcqcn::Rhai", DataRateValue(DataRate(p.rhai)));
    Config::SetDefault("ns3::RdmaCcDcqcn::RateDecreaseInterval", TimeValue(p.decrease));
    Config::SetDefault("ns3::RdmaCcDcqcn::MinRate", DataRateValue(DataRate(p.minRate)));
    Config::SetDefault("ns3::RdmaQueuePair::CnpInterval", TimeValue(p.cnpInterval));
    Config::SetDefault("ns3::RdmaCcDcqcn::ClampTargetRate", BooleanValue(p.clamp));
    return true;
}

std::string
RdmaCcDcqcn::GetName() const
{
    return "dcqcn";
}

void
RdmaCcDcqcn::Init(DataRate lineRate)
{
    RdmaCongestionOps::Init(lineRate);
    m_rc = m_rt = static_cast<double>(lineRate.GetBitRate());
    m_alpha = m_initialAlpha;
}

DataRate
RdmaCcDcqcn::GetRate() const
{
    return DataRate(static_cast<uint64_t>(m_rc));
}

void
RdmaCcDcqcn::AdvanceTo(Time t)
{
    if (!m_cut)
    {
        return; // no CNP yet: line rate, alpha as initialised
    }
    const int64_t k = m_alphaInterval.GetTimeStep();
    for (;;)
    {
        const Time next = std::min(m_nextAlphaTick, m_nextIncrease);
        if (next > t)
        {
            return;
        }
        if (m_nextAlphaTick <= m_nextIncrease)
        {
            if (m_cnpSinceAlphaTick)
            {
                m_alpha = (1 - m_g) * m_alpha + m_g;
                m_cnpSinceAlphaTick = false;
                m_nextAlphaTick += m_alphaInterval;
                continue;
            }
            // A run of ticks without CNPs up to the next increase event (or t): pure decay.
            const Time until = std::min(m_nextIncrease, t);
            const int64_t n = (until - m_nextAlphaTick).GetTimeStep() / k + 1;
            m_alpha *= std::pow(1 - m_g, static_cast<double>(n));
            m_nextAlphaTick += TimeStep(n * k);
        }
        else
        {
            ++m_timerStage;
            Increase(true);
            m_nextIncrease += m_increaseTimer;
        }
    }
}

Time
RdmaCcDcqcn::GetNextRateChange() const
{
    return m_cut ? m_nextIncrease : Time::Max();
}

void
RdmaCcDcqcn::Increase(bool /*fromTimer*/)
{
    const double line = static_cast<double>(m_lineRate.GetBitRate());
    // Without a byte counter the timer alone drives the stages (the HPCC artifact's
    // RateIncEventMlx: fast recovery, then additive, then hyper increase).
    const uint32_t byteStage = m_byteCounter ? m_byteStage : m_timerStage;
    const uint32_t maxStage = std::max(m_timerStage, byteStage);
    const uint32_t minStage = std::min(m_timerStage, byteStage);
    if (maxStage > m_f)
    {
        const double step = minStage > m_f ? m_rhai.GetBitRate() : m_rai.GetBitRate();
        m_rt = std::min(m_rt + step, line);
    }
    m_rc = std::min((m_rt + m_rc) / 2, line);
    NotifyRate(m_rc);
}

void
RdmaCcDcqcn::Cut()
{
    if (m_clampTargetRate || m_timerStage > 0)
    {
        m_rt = m_rc;
    }
    const double cut = std::min(m_alpha / 2, m_maxCut);
    m_rc = std::max(m_rc * (1 - cut), static_cast<double>(m_minRate.GetBitRate()));
    NotifyRate(m_rc);
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceReset = 0;
}

void
RdmaCcDcqcn::OnPacketSent(uint32_t wireBytes)
{
    AdvanceTo(FastSimulator::Now());
    if (!m_cut || m_byteCounter == 0)
    {
        return;
    }
    m_bytesSinceReset += wireBytes;
    while (m_bytesSinceReset >= m_byteCounter)
    {
        m_bytesSinceReset -= m_byteCounter;
        ++m_byteStage;
        Increase(false);
    }
}

void
RdmaCcDcqcn::OnCongestionNotification()
{
    const Time now = FastSimulator::Now();
    AdvanceTo(now);
    if (!m_cut)
    {
        m_nextAlphaTick = now + m_alphaInterval;
    }
    m_cnpSinceAlphaTick = true;
    if (m_cut && now - m_lastCut < m_decreaseInterval)
    {
        return; // at most one cut per rate-decrease interval
    }
    Cut();
    m_cut = true;
    m_lastCut = now;
    m_nextIncrease = now + m_increaseTimer;
}

double
RdmaCcDcqcn::GetCurrentRateBps()
{
    AdvanceTo(FastSimulator::Now());
    return m_rc;
}

double
RdmaCcDcqcn::GetTargetRateBps()
{
    AdvanceTo(FastSimulator::Now());
    return m_rt;
}

double
RdmaCcDcqcn::GetAlpha()
{
    AdvanceTo(FastSimulator::Now());
    return m_alpha;
}

} // namespace ns3
