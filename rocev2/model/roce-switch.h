/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "roce-net-device.h"
#include "switch-mmu.h"

#include "ns3/ipv4-address.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>
#include <vector>

namespace ns3
{

class EcmpRouteTable;

/**
 * \ingroup rocev2
 * \brief An Ethernet switch that routes IPv4 by destination address (an L3 data-centre
 * switch), over equal-cost next hops chosen by a hash of the 5-tuple, with one shared
 * packet buffer and drop-tail when it is full.
 *
 * The forwarding path reads the 38 header bytes it needs from the frame instead of
 * deserialising header objects, and looks routes up by host index (two vector reads).
 * Aggregate it to a Node whose devices are its RoceNetDevice ports.
 *
 * In-band telemetry (HPCC): a RoCE packet whose DSCP has the ingress port's INT bit and whose
 * IntHeader is of type stamp gets a hop record when it leaves its egress queue (as the HPCC
 * artifact's SwitchNotifyDequeue pushes one): the port's line rate, the time, the port's
 * bytes on the wire so far (preamble and IFG included, so a saturated port reports its line
 * rate) and the bytes left in the packet's egress class. The record goes into a free slot of
 * the header, so the frame keeps its size. Other packets pay for one bit test.
 *
 * Tagger (Hu et al., "Tagger: Practical PFC Deadlock Prevention in Data Center Networks", CoNEXT
 * 2017): a packet that arrives on a port facing a higher tier and leaves on one (a leaf that sends
 * a spine's packet up to another spine) has bounced: its path went down and up again, off up-down
 * routing, which is how link failures and fast reroute close PFC cycles in a Clos. With a bounce
 * rule for its ingress priority (attribute BounceRules, or SetBounceRule) such a packet leaves
 * with a new DSCP, and so joins the egress class of that DSCP and the next switch's ingress queue
 * of it. With one lossless class per allowed bounce and rules that only move up, every path inside
 * a class is up-down and no cycle of buffer dependencies can close. Its ingress accounting, and
 * the pause this switch sends upstream for it, stay on the priority it arrived with. The rewrite
 * edits the copied head bytes (incremental IPv4 checksum, as the TTL decrement); the ECN bits and
 * the INT bit are kept, and an 802.1Q tag gets the new priority as its PCP. A rule can drop the
 * packet instead (its classes are used up). RoceFabricHelper marks the ports that face a higher
 * tier from the topology's tiers (SetUpPort). Without rules the cost is one bit test.
 */
class RoceSwitch : public Object
{
  public:
    /// Why a frame was dropped; names are the keys used in summary.json.
    enum DropReason : uint8_t
    {
        BUFFER_FULL = 0,   //!< the shared pool is full (lossy priority)
        HEADROOM_OVERFLOW, //!< a lossless queue overflowed its headroom after pausing
        LOSSY_THRESHOLD,   //!< a lossy queue exceeded its dynamic threshold
        NO_ROUTE,
        NOT_IPV4,
        TTL_EXPIRED,  //!< no TTL left to forward with (a routing loop, RFC 1812 5.3.1)
        BOUNCE_LIMIT, //!< bounced with its lossless classes used up (a Tagger drop rule)
        N_DROP_REASONS
    };

    /// The fields ECMP hashes (host byte order).
    struct FiveTuple
    {
        uint32_t src;
        uint32_t dst;
        uint8_t protocol;
        uint16_t srcPort;
        uint16_t dstPort;
    };

    /// Signature of the Drop trace: (frame, ingress port, DropReason).
    typedef void (*DropTracedCallback)(Ptr<const Packet> frame, uint32_t inPort, uint8_t reason);
    /// Signature of the BufferOccupancy trace: (bytes in use after the change).
    typedef void (*BufferTracedCallback)(uint64_t bytes);

    static TypeId GetTypeId();
    RoceSwitch();
    ~RoceSwitch() override;

    /// Add a port; ports are numbered in the order added, matching the topology's ports.
    uint32_t AddPort(Ptr<RoceNetDevice> port);
    Ptr<RoceNetDevice> GetPort(uint32_t i) const;
    uint32_t GetNPorts() const;

    /**
     * Install this switch's routes.
     * \param routes next hops of every node toward every host
     * \param nodeIndex this switch's node index in the topology
     * \param firstHostAddress IPv4 address of host 0; host h has firstHostAddress + h
     */
    void SetRoutes(const EcmpRouteTable& routes, uint32_t nodeIndex, Ipv4Address firstHostAddress);

    /**
     * Size the buffer once every port is cabled: headroom per lossless (port, priority) from
     * the port's rate, its cable's delay, the largest frame and the peer's response time
     * (SwitchMmu::ComputeHeadroom), times HeadroomScale.
     * \return false when the buffer cannot hold the headroom and reserved minimums
     */
    bool InitBuffer();
    /// Whether EcnKmin <= EcnKmax.
    bool EcnThresholdsValid() const;
    Ptr<SwitchMmu> GetMmu() const;

    /// Deterministic hash of the 5-tuple under a per-switch seed.
    static uint64_t EcmpHash(uint64_t seed, const FiveTuple& t);
    /// Index in [0, n) picked for a hash (multiply-shift, no modulo bias toward low ports).
    static uint32_t PickNextHop(uint64_t hash, uint32_t n);
    static std::string DropReasonName(DropReason reason);

    // ---- Tagger: a bounced packet moves to another lossless class ----
    /// What a bounce rule does instead of rewriting the DSCP (SetBounceRule).
    static constexpr int16_t BOUNCE_DROP = -1;
    /// A priority without a bounce rule (GetBounceRule).
    static constexpr int16_t NO_BOUNCE_RULE = -2;
    /// Mark whether a port faces a higher tier (RoceFabricHelper: the peer's tier is higher).
    void SetUpPort(uint32_t port, bool up);
    bool IsUpPort(uint32_t port) const;
    /**
     * Tagger rule: a packet of this ingress priority that bounces (arrives on an up port and
     * leaves on an up port) leaves with this DSCP, in the egress class the DSCP maps to on its
     * egress port; BOUNCE_DROP drops it (counted as BOUNCE_LIMIT).
     * \param priority the ingress priority \param dscp 0-63 or BOUNCE_DROP
     */
    void SetBounceRule(uint8_t priority, int16_t dscp);
    /// Remove the rule of one priority (its bounced packets then keep their DSCP and class).
    void ClearBounceRule(uint8_t priority);
    /// The rule of a priority: a DSCP, BOUNCE_DROP or NO_BOUNCE_RULE.
    int16_t GetBounceRule(uint8_t priority) const;
    /// Bounced packets this switch gave a new DSCP.
    uint64_t GetRetagged() const;
    /**
     * Rewrite the DSCP of a frame's head bytes in place, as a switch does for a bounce.
     * \param head the frame's first l3 + 20 bytes \param l3 offset of the IPv4 header
     * \param dscp the new DSCP; the bits of keepMask (the INT bit) and the ECN bits are kept
     * \param keepMask DSCP bits kept from the old value
     * \param pcp the PCP written into an 802.1Q tag when head has one
     */
    static void RewriteDscp(uint8_t* head,
                            uint32_t l3,
                            uint8_t dscp,
                            uint8_t keepMask,
                            uint8_t pcp);

    uint64_t GetBufferUsed() const;
    uint64_t GetBufferSize() const;
    uint64_t GetPfcFramesSent() const;
    /// Packets marked CE by this switch.
    uint64_t GetEcnMarks() const;
    /// The ForwardingLatency attribute (a getter: path latencies ask for it per switch).
    Time GetForwardingLatency() const;
    /// RED marking probability of a queue of this many bytes on a port of this rate.
    double MarkingProbability(uint64_t queueBytes, DataRate portRate) const;
    /// Use this stream for ECN marking decisions; returns streams used (1).
    int64_t AssignStreams(int64_t stream);
    uint64_t GetDrops(DropReason reason) const;
    /// Bytes of the frames dropped for a reason.
    uint64_t GetDropBytes(DropReason reason) const;
    /// Of the drops for a reason, those of a priority with PFC on the ingress port.
    uint64_t GetLosslessDrops(DropReason reason) const;
    uint64_t GetLosslessDropBytes(DropReason reason) const;
    uint64_t GetForwarded() const;
    /// Hop records this switch wrote into INT headers.
    uint64_t GetIntStamps() const;

  protected:
    void DoDispose() override;

  private:
    /// A frame arrived on a port, owing ttlDebt TTL decrements (FrameHead).
    void Receive(Ptr<RoceNetDevice> inPort, Ptr<Packet> frame, uint8_t ttlDebt);
    /// A frame left egress class egressPriority of a port; meta is Receive's word; a rewrite
    /// of the IPv4 header pays the frame's TTL debt.
    void Dequeued(uint32_t port,
                  Ptr<Packet> frame,
                  uint8_t egressPriority,
                  uint32_t meta,
                  uint8_t& ttlDebt);
    /// A queued frame was discarded instead of sent (PFC watchdog): release its buffer.
    void Discarded(Ptr<Packet> frame, uint32_t meta);
    /// RED decision on a packet joining or leaving an egress queue of queueBytes.
    void MaybeMarkCe(Ptr<Packet> frame, uint64_t queueBytes, DataRate portRate, uint8_t& ttlDebt);
    /// \param lossless whether the frame's ingress priority has PFC on its ingress port
    /// \param ttlDebt the TTL decrements the frame owes, paid before the drop is traced
    void Drop(Ptr<Packet> frame,
              uint32_t inPort,
              DropReason reason,
              bool lossless,
              uint8_t ttlDebt);
    void UpdatePause(uint32_t port, uint8_t priority);
    /// Set CE in the frame's IPv4 header (paying its TTL debt in the same rewrite).
    static void MarkCe(Ptr<Packet> frame, uint8_t& ttlDebt);
    /// Parse and set the BounceRules attribute ("priority:dscp" or "priority:drop", ...).
    void SetBounceRules(std::string rules);
    std::string GetBounceRules() const;
    /// Append this port's hop record to the frame's INT header (type stamp).
    void StampInt(uint32_t port, Ptr<Packet> frame, uint8_t priority, uint8_t& ttlDebt);
    void RefreshPause(uint32_t port, uint8_t priority);

    std::vector<Ptr<RoceNetDevice>> m_ports;
    std::vector<uint32_t> m_portOfIfIndex;
    Ptr<SwitchMmu> m_mmu;
    double m_headroomScale;
    std::vector<EventId> m_refresh;              //!< port * 8 + priority
    std::vector<uint32_t> m_groupOfHost;         //!< host index -> next-hop group
    std::vector<std::vector<uint16_t>> m_groups; //!< next-hop port sets
    uint32_t m_firstHost{0};
    uint64_t m_seed;
    Time m_forwardingLatency; //!< given to each port (RoceNetDevice::SetForwardingLatency)
    uint64_t m_forwarded{0};
    uint8_t m_ecnPriorities;
    bool m_markAtDequeue;
    bool m_decrementTtl;
    uint64_t m_kmin;
    uint64_t m_kmax;
    double m_pmax;
    DataRate m_ecnReferenceRate;
    uint64_t m_ecnMarks{0};
    bool m_intEnabled;
    uint64_t m_intStamps{0};
    std::vector<uint8_t> m_upPort;       //!< per port: 1 when it faces a higher tier
    std::array<int16_t, 8> m_bounceDscp; //!< per ingress priority: DSCP, BOUNCE_DROP or none
    uint8_t m_bounceMask{0};             //!< priorities with a bounce rule
    uint64_t m_retagged{0};
    Ptr<UniformRandomVariable> m_uniform;
    std::array<uint64_t, N_DROP_REASONS> m_drops{};
    std::array<uint64_t, N_DROP_REASONS> m_dropBytes{};
    std::array<uint64_t, N_DROP_REASONS> m_losslessDrops{};
    std::array<uint64_t, N_DROP_REASONS> m_losslessDropBytes{};

    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> m_dropTrace; //!< frame, in port, reason
    TracedCallback<uint64_t> m_bufferTrace;                           //!< bytes in use
};

} // namespace ns3

#endif /* ROCE_SWITCH_H */
