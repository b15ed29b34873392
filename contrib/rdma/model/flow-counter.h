/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FLOW_COUNTER_H
#define FLOW_COUNTER_H

#include <cstdint>
#include <unordered_set>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief The distinct data flows a port sent: queue pairs, each known by its source and
 * destination address (IPv4 or LID) and its BTH's destination QP. Only packets that carry a
 * message's bytes count (SEND, RDMA WRITE, RDMA READ response): ACKs, CNPs and read requests
 * would add a reverse flow for every forward one. ECMP balances these flows, not bytes, so
 * their spread over a tier's links is what hash collisions are made of.
 */
class FlowCounter
{
  public:
    /**
     * Count one packet.
     * \param src its source address
     * \param dst its destination address
     * \param bth its Base Transport Header's first 8 bytes (opcode ... destination QP)
     */
    void Count(uint32_t src, uint32_t dst, const uint8_t* bth);
    /// The distinct data flows counted.
    uint32_t Get() const;
    /// Whether a BTH opcode carries a message's bytes.
    static bool CarriesData(uint8_t opcode);

  private:
    /// Flows as 64-bit mixes of their identity: two flows collide with odds of about
    /// flows^2 / 2^64, nothing beside a count kept per flow.
    std::unordered_set<uint64_t> m_flows;
    uint64_t m_last{0}; //!< The last flow seen: a message's packets come in a row.
    bool m_any{false};  //!< Whether m_last is one.
};

} // namespace ns3

#endif /* FLOW_COUNTER_H */
