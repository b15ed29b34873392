/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_IB_CCT_H
#define RDMA_CC_IB_CCT_H

#include "rdma-congestion-ops.h"

#include "ns3/nstime.h"
#include "ns3/traced-value.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief The InfiniBand congestion-control reaction point of a source channel adapter (IBTA
 * Vol. 1 Annex A10; shared/reference/infiniband.md 2.1 and 6.8), per queue pair.
 *
 * A BECN (a congestion notification the destination returned for a FECN-marked packet) raises
 * the congestion control table index CCTI by CctiIncrease, at most to CctiLimit. A timer of
 * period CctiTimer x 1.024 us lowers it by one per expiry, not below CctiMin. The CCT entry
 * at CCTI is the inter-packet delay inserted after each packet: entry x CctUnit, or, with
 * CctUnit 0, entry eighths of that packet's own serialisation time (the reference's linear
 * default IPD_i = i x MTU time / 8 for MTU packets). The queue pair paces at the rate this
 * gives, line rate x T / (T + IPD) for a packet of wire time T.
 *
 * The timer runs free from time 0 (a port's CCTI_Timer) and is applied lazily: expiries up to
 * now are counted when the queue pair next asks for its rate or a BECN arrives, which gives the
 * same CCTI as an event per expiry at no cost while nothing happens.
 *
 * Every default comes from infiniband.md 6.8 (the settings Gran et al. report for hardware,
 * IPDPS 2010); the CCTI_Timer unit and the meaning of a CCT entry are unverified against
 * Annex A10 (infiniband.md 6.10), hence CctUnit.
 */
class RdmaCcIbCct : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaCcIbCct();

    std::string GetName() const override;
    void Init(DataRate lineRate) override;
    DataRate GetRate() const override;
    void AdvanceTo(Time now) override;
    /// The next timer expiry while CCTI is above CctiMin.
    Time GetNextRateChange() const override;
    void OnPacketSent(uint32_t wireBytes) override;
    /// A BECN: CCTI += CctiIncrease, capped at CctiLimit.
    void OnCongestionNotification() override;

    /// CCTI after applying the timer up to now.
    uint16_t GetCcti();
    /// The inter-packet delay CCTI gives after a packet of this many bytes on the wire.
    Time GetInterPacketDelay(uint32_t wireBytes) const;
    /// The table in use (after Init).
    const std::vector<uint16_t>& GetTable() const;

  private:
    /// Read the Cct attribute into m_cct (Init).
    void BuildTable();
    Time GetTimerPeriod() const;

    // parameters
    uint16_t m_increase;
    uint16_t m_limit;
    uint16_t m_min;
    uint16_t m_timer;
    std::string m_cctText;
    Time m_cctUnit;

    // state
    std::vector<uint16_t> m_cct;
    TracedValue<uint16_t> m_ccti{0};
    int64_t m_ticks{0};     //!< timer expiries applied (since time 0)
    uint32_t m_lastWire{0}; //!< the last packet's bytes on the wire
};

} // namespace ns3

#endif /* RDMA_CC_IB_CCT_H */
