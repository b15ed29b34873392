/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_HPCC_H
#define RDMA_CC_HPCC_H

#include "int-header.h"
#include "rdma-congestion-ops.h"

#include "ns3/nstime.h"

#include <array>
#include <string>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019): a rate
 * and window from in-band network telemetry, as the paper's Algorithm 1 and the HPCC
 * artifact's RdmaHw::UpdateRateHp/FastReactHp (single rate, MULTI_RATE 0) compute them.
 *
 * Every ACK echoes the hop records (IntHop) its data packet collected. For each hop i, against
 * the previous record of the same hop:
 *
 *   txRate_i = delta bytes / delta time,   u_i = txRate_i / B_i + min(qlen_i, qlen'_i) / (B_i T)
 *
 * U is an EWMA of the largest u_i with weight tau/T (tau: that hop's delta time, at most T).
 * With the reference rate Rc (the window Wc = Rc T of the paper) and eta the target
 * utilisation:
 *
 * - U >= eta or incStage >= MaxStage: R = Rc / (U / eta) + R_AI, and incStage <- 0;
 * - otherwise R = Rc + R_AI, and incStage <- incStage + 1;
 *
 * R is clamped to [MinRate, line rate]. Rc and incStage take the new values only on the
 * first ACK of a packet sent after the previous such update (once per RTT: the ACKed
 * sequence passed the snd_nxt recorded then); other ACKs react at once from the same Rc
 * (FastReact) without moving it. The first ACK only records the hops. The queue pair paces
 * at R and, with LimitWindow, keeps at most W = R T bytes in flight (the artifact's HAS_WIN 1,
 * VAR_WIN 1: its window is the BDP scaled by R / line rate).
 *
 * Presets (ApplyPreset): "paper" (the attribute defaults) and "hpcc" (the artifact's run.py
 * --cc hp at 100G, which runs MaxStage 0: multiplicative every update).
 */
class RdmaCcHpcc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaCcHpcc();

    /// Set the defaults of the HPCC attributes to a preset; false for an unknown name.
    static bool ApplyPreset(const std::string& name);

    std::string GetName() const override;
    void Init(DataRate lineRate) override;
    DataRate GetRate() const override;
    uint64_t GetWindow() const override;
    bool WantsTelemetry() const override;
    void OnTelemetry(const IntHeader& echo, uint64_t ackedUpTo, uint64_t sndNxt) override;

    /// Current sending rate R, bit/s.
    double GetRateBps() const;
    /// Reference rate Rc (the paper's Wc / T), bit/s.
    double GetReferenceRateBps() const;
    /// The EWMA of the normalised in-flight bytes, U.
    double GetUtilisation() const;
    uint32_t GetIncStage() const;
    /// Additive increase R_AI at this queue pair's line rate, bit/s.
    double GetRaiBps() const;

  private:
    void SetRate(double bps);

    // parameters
    double m_eta;
    uint32_t m_maxStage;
    DataRate m_rai;
    Time m_baseRtt;
    bool m_fastReact;
    DataRate m_minRate;
    bool m_limitWindow;

    // state
    double m_rate{0};    //!< R
    double m_refRate{0}; //!< Rc
    double m_raiBps{0};  //!< R_AI at this line rate
    double m_u{1};       //!< U (the artifact starts it at 1)
    uint32_t m_incStage{0};
    uint64_t m_lastUpdateSeq{0};
    bool m_started{false}; //!< hop records of a first ACK are stored
    uint32_t m_nHops{0};
    std::array<IntHop, IntHeader::MAX_HOPS> m_hops{};
};

} // namespace ns3

#endif /* RDMA_CC_HPCC_H */
