/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NV_SWITCH_H
#define NV_SWITCH_H

#include "nccl-tuner.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The NVLink domain of one node: its GPUs joined through NVSwitch, as a bandwidth
 * model per GPU, so that everything a GPU sends or receives inside the node (ring and tree
 * hops, PXN, P2P) competes for its NVLinks.
 *
 * Each GPU has an egress port (its NVLinks towards the switches) and an ingress port (from
 * them), each of GpuBandwidth. Transfers go on streams from one GPU to another (one per
 * connection: a stream delivers its transfers in order, as a CUDA block writes its peer's
 * FIFO). A transfer is cut into segments of SegmentBytes: the source's egress serves its
 * streams that have bytes to send in round robin, a segment at a time, and hands each
 * segment to the switch's queue for that destination and source (a virtual output queue),
 * which the destination's ingress serves in round robin over the sources; a segment is
 * delivered Latency after its ingress finished it, and a transfer is done with its last
 * segment. The egress holds a stream back while its queue at the destination already holds
 * IngressQueueSegments (NVLink's link-level flow control: a congested GPU slows the traffic
 * to it instead of queueing without bound, and its senders' other traffic goes on).
 * NVSwitch is non-blocking inside, so only the GPUs' ports limit.
 *
 * NVLink SHARP (NVLS, Hopper's NVSwitch): streams can be joined into groups the switch
 * serves as one (NCCL's NVLS all-reduce, src/device/all_reduce.h, runs on both):
 *  - a reduction group (multimem.ld_reduce): streams from several GPUs to one; the switch
 *    combines the k-th bytes of every stream and the destination's ingress receives them
 *    once. With the destination as a member, its own bytes cross its egress too (the switch
 *    pulls from every GPU of the multicast object, the puller's own memory included).
 *  - a multicast group (multimem.st): streams from one GPU to several; the source's egress
 *    sends the k-th bytes once, when every stream has them, and the switch copies them to
 *    every destination (the source too, when a member).
 * A group's streams carry transfers of equal sizes in the same order; the switch queues a
 * group's traffic at a destination apart from the GPUs' (its own round-robin slot: each
 * destination serves every group that flows to it as it serves every source GPU), and cuts
 * a group's streams into finer segments (GroupSegmentBytes). Against plain streams a group's
 * stream therefore gets a turn of GroupSegmentBytes where they get SegmentBytes (a quarter
 * by default): NVLS beside other NVLink traffic is held back that much.
 *
 * Presets (NcclTuner's per-link bandwidth, src/graph/topo.h, times the SXM links): H100 18
 * NVLink4 x 20.6 GB/s = 370.8 GB/s, A100 12 NVLink3 x 20 = 240 GB/s. These are NCCL's
 * effective figures, not the raw 25 GB/s per link and direction: an HGX H100 measures
 * 371-377 GB/s unidirectional P2P writes (p2pBandwidthLatencyTest, NVIDIA/nccl#1264) and
 * all-reduce busbw ~370 GB/s (nccl-tests#212).
 */
class NvSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    NvSwitch();
    ~NvSwitch() override;

    /// Called when a transfer has been delivered whole.
    typedef Callback<void> DeliveredCallback;
    /// Signature of the Delivered trace: (source GPU, destination GPU, bytes).
    typedef void (*DeliveredTracedCallback)(uint32_t src, uint32_t dst, uint64_t bytes);

    /// The per-GPU bandwidth of a generation's SXM part: NVLinks x NCCL's per-link figure.
    static DataRate GetPresetBandwidth(GpuGeneration generation);

    /// Set the number of GPUs (before the first transfer).
    void SetGpuCount(uint32_t gpus);
    uint32_t GetGpuCount() const;
    DataRate GetGpuBandwidth() const;
    Time GetLatency() const;
    uint32_t GetSegmentBytes() const;

    /// A new stream from GPU src to GPU dst (!= src); returns its id.
    uint32_t AddStream(uint32_t src, uint32_t dst);

    /**
     * Bound a stream by its writer: a segment is delivered no earlier than its bytes at this
     * rate after the previous one's (the link still carries it at its own rate, shared with
     * the others). For protocols whose kernels, not the links, set the pace (LL).
     * \param stream a stream of AddStream
     * \param bytesPerSecond 0 removes the bound
     */
    void SetStreamCap(uint32_t stream, double bytesPerSecond);
    /**
     * Give a stream the writer of another from the same GPU: one kernel block writing
     * both (a P2P channel's CTA serving several peers), so that their segments share its
     * rate (SetStreamCap on either sets it) in the order the egress cuts them.
     * \param stream a stream of AddStream
     * \param with a stream of AddStream from the same GPU
     */
    void ShareWriter(uint32_t stream, uint32_t with);
    /**
     * Move bytes along a stream, after what the stream already carries.
     * \param stream a stream of AddStream
     * \param bytes bytes (> 0)
     * \param delivered called when the last byte arrived
     */
    void Transfer(uint32_t stream, uint64_t bytes, DeliveredCallback delivered);

    /**
     * Join streams to one GPU into a reduction group (see the class description).
     * \param streams streams of AddStream from distinct GPUs to one, in no other group
     * \param withDestination the destination's own bytes cross its egress too
     */
    void AddReduceGroup(const std::vector<uint32_t>& streams, bool withDestination);
    /**
     * Join streams from one GPU into a multicast group (see the class description).
     * \param streams streams of AddStream from one GPU to distinct GPUs, in no other group
     * \param withSource the source receives a copy too
     */
    void AddMulticastGroup(const std::vector<uint32_t>& streams, bool withSource);

    /// Bytes a GPU sent / received through the switch so far.
    uint64_t GetBytesSent(uint32_t gpu) const;
    uint64_t GetBytesReceived(uint32_t gpu) const;
    /// Time a GPU's egress / ingress port spent sending so far.
    Time GetEgressBusyTime(uint32_t gpu) const;
    Time GetIngressBusyTime(uint32_t gpu) const;

  protected:
    void DoDispose() override;

  private:
    struct Pending
    {
        uint64_t bytes;
        uint64_t undelivered;
        DeliveredCallback delivered;
    };

    struct Stream
    {
        uint32_t src;
        uint32_t dst;
        std::deque<Pending> transfers; //!< not yet delivered, in order
        size_t sending{0};             //!< the transfer the egress cuts segments from
        uint64_t sentOfIt{0};          //!< its bytes the egress has taken
        bool active{false};            //!< in its egress's round robin
        uint32_t writer{0};            //!< the kernel block that writes it (m_writers)
        int32_t group{-1};             //!< its NVLS group, or -1
        uint32_t member{0};            //!< its index among the group's members
        uint64_t posted{0};            //!< transfers posted so far
    };

    /// What writes one or more streams (SetStreamCap, ShareWriter).
    struct Writer
    {
        double rate{0}; //!< bytes per second it can produce (0: unbounded)
        Time freeAt;    //!< when it has produced what was cut of its streams so far
    };

    struct Segment
    {
        uint32_t stream; //!< for a reduction group's combined segment: the group
        uint64_t bytes;
        Time notBefore;      //!< its writer's production of it ends then (Stream::cap)
        bool reduced{false}; //!< a reduction group's combined segment
    };

    /// An NVLS group. Its members' transfers are equal; the last member is the internal
    /// stream of the GPU that both sends and receives, when it takes part.
    struct Group
    {
        bool reduce;   //!< a reduction, else a multicast
        uint32_t gpu;  //!< the reduction's destination, the multicast's source
        uint32_t slot; //!< a reduction's queue at gpu's ingress, for the combined bytes
        std::vector<uint32_t> members;
        std::vector<uint32_t> slots; //!< a multicast's queue at each member's destination
        std::vector<std::deque<Segment>> arrived; //!< reduction: per member, at the switch
        std::vector<uint32_t> inFlight;           //!< reduction: per member, on its egress
    };

    struct Egress
    {
        std::vector<uint32_t> active; //!< streams with bytes to send, in round-robin order
        size_t next{0};
        bool busy{false};
        uint64_t bytes{0};
        Time busyTime;
    };

    struct Ingress
    {
        std::vector<std::deque<Segment>> voq; //!< by slot: the source GPUs, then the NVLS
                                              //!< groups'; the served one's first is being
                                              //!< received
        std::vector<uint32_t> reserved;       //!< by slot: segments on their way here
        std::vector<uint32_t> groups;         //!< the groups of the slots after the GPUs'
        uint32_t next{0};                     //!< round robin over the slots
        bool busy{false};
        uint32_t serving{0};
        uint64_t bytes{0};
        Time busyTime;
    };

    void ServeEgress(uint32_t gpu);
    void EgressDone(uint32_t gpu, Segment s);
    void ServeIngress(uint32_t gpu);
    void IngressDone(uint32_t gpu);
    void Deliver(Segment s);
    /// Account bytes delivered on a stream; calls back when its first transfer is whole.
    void DeliverOn(uint32_t stream, uint64_t bytes);
    Time TxTime(uint64_t bytes) const;
    /// Whether the queue of a slot (a source GPU or a group) at a GPU's ingress has room.
    bool SlotHasRoom(uint32_t gpu, uint32_t slot) const;
    /// Segments a group's queue holds: IngressQueueSegments' bytes in GroupSegmentBytes.
    uint32_t GroupQueueSegments() const;
    /// The slot a group member's segments take at its destination's ingress.
    uint32_t SlotOf(const Group& g, const Stream& member) const;
    /// Whether the stream's next segment may leave its egress now.
    bool MayCut(const Stream& s) const;
    /// Take a segment's bytes from the stream's transfers.
    static void Advance(Stream& s, uint64_t seg);
    /// Put a stream with bytes to send in its egress's round robin (a multicast's first).
    void Activate(uint32_t stream);
    /// Queue a segment at a GPU's ingress slot.
    void Enqueue(uint32_t gpu, uint32_t slot, Segment s);
    /// Combine what every member of a reduction has at the switch, as far as its slot allows.
    void Combine(uint32_t group);
    /// A group of the streams, and of the GPU at its one end if withEnd.
    uint32_t NewGroup(const std::vector<uint32_t>& streams, bool reduce, bool withEnd);
    uint32_t AddSlot(uint32_t gpu, uint32_t group);

    DataRate m_bandwidth;
    Time m_latency;
    uint32_t m_segmentBytes;
    uint32_t m_groupSegmentBytes;
    uint32_t m_ingressQueue;
    std::vector<Stream> m_streams;
    std::vector<Writer> m_writers;
    std::vector<Egress> m_egress;
    std::vector<Ingress> m_ingress;
    std::vector<Group> m_groups;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_deliveredTrace;
};

} // namespace ns3

#endif /* NV_SWITCH_H */
