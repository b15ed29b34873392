/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_DCQCN_H
#define RDMA_CC_DCQCN_H

#include "rdma-congestion-ops.h"

#include "ns3/nstime.h"

#include <string>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief The DCQCN reaction point (Zhu et al., SIGCOMM 2015) as ConnectX firmware runs it.
 *
 * State: current rate Rc, target rate Rt, rate-reduction factor alpha.
 * - On a CNP (at most one cut per RateDecreaseInterval): Rt <- Rc (with ClampTargetRate off, as
 *   ConnectX firmware runs, only if a timer increase happened since the previous cut, so a burst
 *   of cuts keeps the pre-congestion target), Rc <- Rc (1 - alpha/2),
 *   never below MinRate nor by more than MaxCutFraction; the increase timer, byte counter and
 *   their stage counts restart.
 * - alpha runs on its own timer of period AlphaUpdateInterval: alpha <- (1-g) alpha + g when a
 *   CNP arrived during the period, alpha <- (1-g) alpha otherwise (the first CNP uses alpha as it
 *   is, initially InitialAlpha).
 * - Increase events come from a timer of period RateIncreaseTimer and from a byte counter every
 *   ByteCounter bytes sent (0 = off). For the first F events of either kind, fast recovery:
 *   Rc <- (Rt + Rc) / 2. Once one counter passed F, additive increase: Rt <- Rt + Rai, then
 *   Rc <- (Rt + Rc) / 2; once both passed F, hyper increase with Rhai. Rt is clipped at line rate.
 *
 * The timers are not ns-3 events: their expiries are applied, in time order, when the QP next
 * sends or receives a CNP, which gives the same rates as a timer-driven implementation (the rate
 * is only observed at those instants) at no cost per idle QP.
 *
 * Presets (ApplyPreset): "paper" (Zhu et al. 2015, section 5), "mlx" (NVIDIA ConnectX firmware
 * defaults; the attribute defaults), "hpcc" (the HPCC artifact's run.py --cc dcqcn at 100G).
 * Sources per value in shared/reference/rocev2-pfc-dcqcn.md 1.2.
 */
class RdmaCcDcqcn : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaCcDcqcn();

    /// Set the defaults of every DCQCN attribute (and the NP's CNP interval) to a preset.
    /// \return false for an unknown preset name
    static bool ApplyPreset(const std::string& name);

    std::string GetName() const override;
    void Init(DataRate lineRate) override;
    DataRate GetRate() const override;
    void OnPacketSent(uint32_t wireBytes) override;
    void OnCongestionNotification() override;
    /// Apply every alpha-timer and increase-timer expiry up to time t, in time order.
    void AdvanceTo(Time t) override;
    /// The next increase-timer expiry once a CNP has cut the rate.
    Time GetNextRateChange() const override;

    /// Current state, after applying timer expiries up to now (for tests and traces).
    double GetCurrentRateBps();
    double GetTargetRateBps();
    double GetAlpha();

  private:
    void Increase(bool fromTimer);
    void Cut();

    // parameters
    double m_g;
    Time m_alphaInterval;
    double m_initialAlpha;
    Time m_increaseTimer;
    uint64_t m_byteCounter;
    uint32_t m_f;
    DataRate m_rai;
    DataRate m_rhai;
    Time m_decreaseInterval;
    DataRate m_minRate;
    double m_maxCut;
    bool m_clampTargetRate;

    // state
    double m_rc{0};
    double m_rt{0};
    double m_alpha{1};
    bool m_cnpSinceAlphaTick{false};
    Time m_nextAlphaTick;
    Time m_nextIncrease;
    Time m_lastCut;
    bool m_cut{false}; //!< whether a cut ever happened (before it, sending is at line rate)
    uint64_t m_bytesSinceReset{0};
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
};

} // namespace ns3

#endif /* RDMA_CC_DCQCN_H */
