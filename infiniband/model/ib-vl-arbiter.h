/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_VL_ARBITER_H
#define IB_VL_ARBITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief The data-VL arbiter of one InfiniBand output port (IBTA Vol. 1 7.6.9; OpenSM
 * doc/QoS_management_in_OpenSM.txt section 7; shared/reference/infiniband.md 1.2 and 6.4).
 *
 * Two weighted round-robin tables, high and low priority, of up to 64 (VL, weight) entries;
 * a weight counts 64-byte credits (0-255) and 0 skips the entry. A table serves its current
 * entry while the entry has weight left and its VL is eligible, then moves on to the next
 * entry with weight and an eligible VL, which starts with its full weight. Arbitration is per
 * packet: a packet starts while the entry has weight left and always finishes, even when it
 * takes the entry past its weight (nothing carries over to the entry's next turn, as in the
 * Mellanox flit simulator's src/vlarb.cc).
 *
 * The high table goes first, but only HighLimit x 4 KB (HighLimit x 64 credits) may leave it
 * before the low table gets an opportunity to send one packet; HighLimit 0 allows one
 * high-priority packet, 255 is unbounded. When the limit is reached and the low table has
 * nothing eligible, the high table goes on (the port never idles with a packet that may go);
 * the count restarts whenever a low-priority packet is sent.
 *
 * Only VLs whose head packet has all its credits are eligible (the caller's bit mask); a VL
 * that has no entry with weight in either table never sends. No allocation after Configure.
 */
class IbVlArbiter
{
  public:
    /// Entries a table holds at most (VLArbHighCap/VLArbLowCap up to 64, infiniband.md 1.2).
    static constexpr uint32_t MAX_ENTRIES = 64;
    /// HighLimit value meaning unbounded.
    static constexpr uint8_t UNBOUNDED = 255;
    /// Credits per HighLimit unit: 4 KB in 64-byte blocks.
    static constexpr uint32_t CREDITS_PER_LIMIT_UNIT = 4096 / 64;

    /// One table entry.
    struct Entry
    {
        uint8_t vl;
        uint8_t weight; //!< 64-byte credits; 0 skips the entry
    };

    IbVlArbiter();

    /**
     * Read a table as OpenSM writes it ("VL:weight,VL:weight,...", e.g. "0:0,1:64,2:128").
     * The word "default" stands for OpenSM's default template restricted to the port's VLs;
     * an empty string is an empty table. Throws an InputError naming the attribute and the
     * entry for a malformed entry, a VL the port does not have, a weight above 255 or more
     * than 64 entries (a program reports it and exits with code 2).
     * \param attribute the attribute's full name, for the error message
     * \param text the table
     * \param nVls the port's data VLs
     * \param high whether this is the high-priority table (for "default")
     */
    static std::vector<Entry> Parse(const std::string& attribute,
                                    const std::string& text,
                                    uint8_t nVls,
                                    bool high);

    /// Install the tables and the high limit; the arbitration state restarts.
    void Configure(const std::vector<Entry>& high,
                   const std::vector<Entry>& low,
                   uint8_t highLimit);

    /**
     * Choose the VL of the next packet.
     * \param eligible bit v set when VL v's head packet may be sent now
     * \return the VL, or -1 when no entry with weight names an eligible VL
     */
    int Pick(uint16_t eligible);

    /// The packet of the last Pick started: charge its credits to its entry and table.
    void Charge(uint32_t blocks);

    const std::vector<Entry>& GetHighTable() const;
    const std::vector<Entry>& GetLowTable() const;
    uint8_t GetHighLimit() const;

  private:
    struct Table
    {
        std::vector<Entry> entries;
        uint32_t index{0}; //!< the entry being served
        uint32_t used{0};  //!< credits it sent in its current turn
    };

    /// The VL the table serves next among the eligible ones, or -1.
    static int Scan(Table& t, uint16_t eligible);

    Table m_high;
    Table m_low;
    uint8_t m_highLimit{0};
    uint32_t m_highCredits{0}; //!< sent from the high table since the low table's last turn
    bool m_lastHigh{false};    //!< which table the last Pick served
};

} // namespace ns3

#endif /* IB_VL_ARBITER_H */
