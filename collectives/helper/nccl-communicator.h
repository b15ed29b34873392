/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_COMMUNICATOR_H
#define NCCL_COMMUNICATOR_H

#include "gpu-layout.h"

#include "ns3/collective-op.h"
#include "ns3/collective-schedule-builder.h"
#include "ns3/gpu-rank.h"
#include "ns3/nccl-algorithm.h"
#include "ns3/nccl-tuner.h"
#include "ns3/nv-switch.h"
#include "ns3/p2p-schedule.h"
#include "ns3/rdma-fabric.h"
#include "ns3/tcp-host-stack.h"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace ns3
{

class EcmpRouteTable;
class FabricTopology;
class RdmaConnection;

/**
 * \ingroup collectives
 * \brief An NCCL communicator over the GPUs of a built RDMA fabric (RoCEv2 or InfiniBand,
 * through RdmaFabric), packet by packet: one GpuRank per GPU on the node of its NIC, an
 * NvSwitch per node, and NCCL's collectives as CollectiveScheduleBuilder decomposes them
 * (channels, chunks, slices, rings, double binary trees, P2P rounds), run by the ranks over
 * NCCL's transports:
 *  - inside a node, NCCL's P2P transport over NVLink (NvLinkConnection), and for NVLS a
 *    channel's connections to and from each head joined into NvSwitch reduction and
 *    multicast groups, at NCCL's nvlsEfficiency;
 *  - between nodes, one RC queue pair per channel and peer (net_ib: one QP per connection,
 *    NCCL_IB_QPS_PER_CONNECTION = 1) from the NIC of the receiver's rail, reached through
 *    the GPU of that NIC with PXN (PxnConnection; NCCL >= 2.12's default) when the sender is
 *    another GPU, or from the sender's own NIC without PXN; or, with Config::tcp, TCP sockets
 *    from the sender's NIC (TcpConnection, with a TcpHostStack per GPU).
 *
 * Channel c leaves and enters every node through NIC c mod nicsPerNode: its chain starts at
 * the GPU of that NIC and visits the others in order (rings, and the trees hung off it).
 * NCCL's tuner picks the algorithm and protocol (NcclTuner, configured from the layout, the
 * NIC rate and the GPU generation) among those not excluded by a forced one, as NCCL_ALGO and
 * NCCL_PROTO restrict it; P2P operations use Simple. Per-hop
 * and start latencies are the tuner's hardware and base latencies of the pick
 * (GpuRank::OpConfig), so the packet mode and the analytical mode share NCCL's constants.
 */
class NcclCommunicator
{
  public:
    struct Config
    {
        GpuGeneration generation{GpuGeneration::HOPPER};
        /// Channels of the communicator; 0: DefaultChannels.
        uint32_t nChannels{0};
        /// PXN: network sends leave through the NIC of the receiver's rail (RDMA only: the
        /// socket transport has no PXN).
        bool pxn{true};
        /// Between nodes: RDMA queue pairs, or TCP sockets (NCCL's socket transport) over the
        /// fabric's IP stack.
        bool tcp{false};
        /// TCP sockets per connection (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS: 1 x 1
        /// on a generic NIC, nccl.md 5).
        uint32_t tcpSockets{1};
        /// NVLS may run where NCCL runs it (NCCL_NVLS_ENABLE): all-reduce inside one node of
        /// Hopper or later GPUs.
        bool nvls{true};
    };

    /// One collective.
    struct Request
    {
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        uint64_t bytes{0};       //!< S, the bytes each rank contributes (CollectiveSchedule)
        uint32_t elementSize{4}; //!< float
        uint32_t root{0};
        /// Force the algorithm (NCCL_ALGO) or the protocol (NCCL_PROTO); the tuner picks
        /// what is not forced, among what is.
        bool forceAlgorithm{false};
        bool forceProtocol{false};
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
    };

    struct Result
    {
        Request request;
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        uint32_t nChannels{0};
        uint32_t opIndex{0};
        Time start;
        Time end; //!< when the last rank finished
    };

    typedef Callback<void, const Result&> DoneCallback;

    /**
     * Build the ranks and NVLink domains now (connections come with the collectives that use
     * them).
     * \param fabric a built fabric (outlives this object, as do topology and routes)
     * \param topology its topology
     * \param routes its routes
     * \param layout where the GPUs sit: every NIC a host of the fabric
     * \param config generation, channels, PXN
     */
    NcclCommunicator(const RdmaFabric& fabric,
                     const FabricTopology& topology,
                     const EcmpRouteTable& routes,
                     const GpuLayout& layout,
                     const Config& config);
    ~NcclCommunicator();

    /// NCCL's channel count for a layout: 16 with NVLink between several GPUs per node (an
    /// 8-GPU H100 node's 16 coll channels, NVIDIA/nccl#892, #1259), else 2 per NIC.
    static uint32_t DefaultChannels(const GpuLayout& layout);
    static uint32_t DefaultChannels(uint32_t gpusPerNode, uint32_t nicsPerNode);

    /**
     * Start a collective on every rank now; done is called when the last rank finished.
     * Collectives run one after another: starting one before the last finished aborts.
     *
     * In a split run (docs/distributed.md) Start must run in a global event (every process
     * runs it): each rank starts in its node's context, so in its own process; each announces
     * its end to every process (FabricSimulatorImpl::Announce), and done runs in every process
     * one lookahead after the last rank finished, with the result's end at that finish.
     */
    void Start(const Request& request, DoneCallback done);
    bool IsRunning() const;

    /// The algorithm and protocol the request runs with.
    std::pair<NcclAlgorithm, NcclProtocol> Choose(const Request& request) const;
    /// The schedule configuration of a request run with an algorithm and protocol.
    CollectiveScheduleBuilder::Config ScheduleConfig(const Request& request,
                                                     NcclAlgorithm algorithm,
                                                     NcclProtocol protocol) const;
    /// The ranks' settings for a request run with an algorithm and protocol.
    GpuRank::OpConfig OpConfig(CollectiveOp op,
                               NcclAlgorithm algorithm,
                               NcclProtocol protocol,
                               uint32_t opIndex,
                               uint32_t nChannels) const;

    /// How all-to-all and send/recv stripe their peers over channels (NCCL's p2pnChannels,
    /// p2pnChannelsPerPeer, p2pChunkSize for this communicator).
    P2pSchedule::Striping GetP2pStriping() const;

    const NcclTuner& GetTuner() const;
    const GpuLayout& GetLayout() const;
    uint32_t GetNRanks() const;
    uint32_t GetNChannels() const;
    /// The NIC line rate in Gb/s (the tuner's nicGbps): the slowest NIC link.
    double GetNicGbps() const;
    Ptr<GpuRank> GetRank(uint32_t rank) const;
    /// A node's NVLink domain (null with one GPU per node).
    Ptr<NvSwitch> GetNvSwitch(uint32_t node) const;
    /// Connections made so far: over NVLink, over the network (of which through PXN).
    uint32_t GetNvLinkConnections() const;
    uint32_t GetNetworkConnections() const;
    uint32_t GetPxnConnections() const;
    /// Data packets the communicator's queue pairs retransmitted.
    uint64_t GetRetransmissions() const;

  private:
    void Connect(uint32_t channel, uint32_t src, uint32_t dst);
    /// The NVLS connections of a channel id to or from a head, all its node's GPUs at once,
    /// joined into the switch's reduction or multicast group.
    void ConnectNvls(uint32_t channel, uint32_t head);
    /// NVLS's head GPUs (local indices): empty inside one node (every GPU), else one per NIC.
    std::vector<uint32_t> NvlsHeadGpus() const;
    Ptr<TcpHostStack> HostStack(uint32_t rank);
    void RankDone(uint32_t rank, uint32_t opIndex);
    /// A rank finished at `when` (in a split run: the notice of it, in every process).
    void RankFinished(Time when);

    const RdmaFabric& m_fabric;
    const FabricTopology& m_topology;
    const EcmpRouteTable& m_routes;
    GpuLayout m_layout;
    Config m_config;
    uint32_t m_nChannels;
    double m_nicGbps;
    std::unique_ptr<NcclTuner> m_tuner;
    std::vector<Ptr<GpuRank>> m_ranks;
    std::vector<Ptr<NvSwitch>> m_switches;
    std::vector<Ptr<RdmaConnection>> m_network; //!< sending ends
    uint32_t m_tcpConnections{0};
    std::vector<Ptr<TcpHostStack>> m_stacks; //!< by rank (TCP)
    uint32_t m_nvlink{0};
    uint32_t m_pxn{0};

    bool m_running{false};
    uint32_t m_nextOp{0};
    uint32_t m_ranksLeft{0};
    /// In a split run: the channel of the ranks' notices (UINT32_MAX until the first Start).
    uint32_t m_notices{UINT32_MAX};
    Result m_result;
    DoneCallback m_done;
};

} // namespace ns3

#endif /* NCCL_COMMUNICATOR_H */
