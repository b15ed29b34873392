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
     * Move bytes along a stream, after what the stream already carries.
     * \param stream a stream of AddStream
     * \param bytes bytes (> 0)
     * \param delivered called when the last byte arrived
     */
    void Transfer(uint32_t stream, uint64_t bytes, DeliveredCallback delivered);

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
        double cap{0};                 //!< bytes per second its writer can produce (0: none)
        Time capFreeAt;                //!< when the writer has produced what was cut so far
    };

    struct Segment
    {
        uint32_t stream;
        uint64_t bytes;
        Time notBefore; //!< its writer's production of it ends then (Stream::cap)
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
        std::vector<std::deque<Segment>> voq; //!< by source GPU; the served one's first is
                                              //!< being received
        std::vector<uint32_t> reserved;       //!< by source: segments on their way here
        uint32_t next{0};                     //!< round robin over the sources
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
    Time TxTime(uint64_t bytes) const;
    bool HasRoom(uint32_t src, uint32_t dst) const;

    DataRate m_bandwidth;
    Time m_latency;
    uint32_t m_segmentBytes;
    uint32_t m_ingressQueue;
    std::vector<Stream> m_streams;
    std::vector<Egress> m_egress;
    std::vector<Ingress> m_ingress;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_deliveredTrace;
};

} // namespace ns3

#endif /* NV_SWITCH_H */
