/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef GPU_RANK_H
#define GPU_RANK_H

#include "collective-connection.h"
#include "nccl-algorithm.h"
#include "nccl-tuner.h"
#include "rank-program.h"

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One GPU's rank of a communicator, as an ns-3 Application on the node of its NIC: it
 * executes its RankProgram of each collective over its connections, one collective after
 * another (one NCCL stream), the way NCCL's kernels and proxies move a channel's data.
 *
 * Each connection has a FIFO of NCCL_STEPS = 8 slots at the receiver (src/include/device.h;
 * FifoSlots) shared by all protocols (NCCL keeps one step counter per connection), and a
 * message of a collective takes a fixed number of them (SLICESTEPS for the Simple ring, one
 * step otherwise; OpConfig::slotsPerMessage). A send is issued in its connection's order
 * when the receives it reads have arrived, in two stages:
 *  - the GPU stage: the data is written to a free slot, on the sender's side when the
 *    connection has a sender buffer (NCCL's network transport), else in the receiver's FIFO
 *    (P2P over NVLink); the receives it read are then consumed;
 *  - the transport stage, for connections with a sender buffer: once the receiver has a
 *    free slot, as its clear-to-send said, the proxy posts the message.
 * Either way the message leaves the per-hop latency of its link class after both held
 * (OpConfig::hopLatency, less what the connection itself takes on an idle path: NCCL's
 * hardware latencies include the wire, which the fabric models). A slot of the sender's
 * buffer is free again when the transport completed the send; a slot at the receiver when
 * every send that reads the message has taken it (RankProgram's consumers), or on arrival
 * for a final result: then the receiver returns the slots as a credit message on the same
 * connection (for RDMA a 64-byte WRITE, as NCCL's net_ib posts its clear-to-send FIFO entry,
 * struct ncclIbSendFifo, alignas(64)).
 *
 * Messages carry the wire bytes of their protocol (ChannelSplit::WireBytes: LL doubles the
 * payload, LL128 adds 8 of every 128 bytes). Reduction and copies are taken as free (the GPU
 * outruns the links). A collective finishes at this rank when all its sends completed and
 * all its receives arrived. Messages of a later collective that arrive first wait in their
 * connection's FIFO until this rank starts it.
 */
class GpuRank : public Application
{
  public:
    static TypeId GetTypeId();
    GpuRank();
    ~GpuRank() override;

    /// Bytes of a credit (clear-to-send) message: sizeof(struct ncclIbSendFifo), 64.
    static constexpr uint32_t CREDIT_BYTES = 64;

    /// What one collective needs besides its program.
    struct OpConfig
    {
        uint32_t opIndex{0}; //!< the collective's index in its communicator's sequence
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        uint32_t slotsPerMessage{1};
        /// Before the first send: NCCL's base latency (kernel launch and set-up).
        Time startLatency;
        /// Per link class (NcclTuner::Link): NCCL's hardware latency per hop.
        std::array<Time, 3> hopLatency{};
        /// Wire bytes per second a channel's kernel writes (LL: NCCL's llMaxBw over the
        /// channels, on the wire); 0: the links alone bound it.
        double kernelWireBytesPerSecond{0};
        /// Connections without a sender buffer (P2P over NVLink): after writing a message the
        /// channel's kernel fences and posts the step (the SliceFence attribute) before it
        /// writes the next one on that connection (Simple); false: back to back.
        bool fenceSlices{false};
    };

    /// Called when a collective finished at this rank: (rank, operation index).
    typedef Callback<void, uint32_t, uint32_t> DoneCallback;
    /// Signature of the Done trace: (rank, operation index, wire bytes sent).
    typedef void (*DoneTracedCallback)(uint32_t rank, uint32_t opIndex, uint64_t bytes);

    void SetRank(uint32_t rank);
    uint32_t GetRank() const;

    /// This rank sends the channel's data to peer on conn (and gets the peer's credits on it).
    void AddSendConnection(uint32_t channel, uint32_t peer, Ptr<CollectiveConnection> conn);
    /// This rank receives the channel's data from peer on conn (and returns credits on it).
    void AddReceiveConnection(uint32_t channel, uint32_t peer, Ptr<CollectiveConnection> conn);
    bool HasSendConnection(uint32_t channel, uint32_t peer) const;
    bool HasReceiveConnection(uint32_t channel, uint32_t peer) const;
    Ptr<CollectiveConnection> GetSendConnection(uint32_t channel, uint32_t peer) const;

    /**
     * Start a collective now (its first sends leave after config.startLatency).
     * \param program this rank's program; every queue of it must have a connection
     * \param config the collective's protocol, slots and latencies
     * \param done called when the collective finished at this rank
     */
    void Start(std::shared_ptr<const RankProgram> program,
               const OpConfig& config,
               DoneCallback done);
    bool IsRunning() const;
    /// Wire bytes of all data messages this rank sent, all collectives.
    uint64_t GetBytesSent() const;

  protected:
    void DoDispose() override;

  private:
    /// A connection this rank sends on.
    struct SendEnd
    {
        Ptr<CollectiveConnection> conn;
        uint32_t remoteFree; //!< slots free at the receiver, as its credits said
        uint32_t localFree;  //!< slots free in the sender buffer
        /// (bytes, tag) written, awaiting credit (sender buffer) or the fence (P2P)
        std::deque<std::pair<uint64_t, uint32_t>> written;
        uint32_t queue{0}; //!< its queue in the running program
        bool inProgram{false};
        Time hopLatency;     //!< this collective's per-hop latency on it
        bool writing{false}; //!< P2P with a slice fence: a message is being written
    };

    /// A connection this rank receives on.
    struct RecvEnd
    {
        Ptr<CollectiveConnection> conn;
        std::vector<std::pair<uint64_t, uint32_t>> early; //!< messages not yet taken
        uint32_t queue{0};
        bool inProgram{false};
    };

    void StartApplication() override;
    void StopApplication() override;

    void Begin();
    /// Issue the queue's head sends as far as they can go.
    void Advance(uint32_t queue);
    /// Post the written messages the receiver has room for.
    void PostWritten(uint32_t end);
    void Post(uint32_t end, uint64_t bytes, uint32_t tag);
    /// P2P with a slice fence: a message is ready to be written after the ones before it.
    void Queue(uint32_t end, uint64_t bytes, uint32_t tag);
    /// P2P with a slice fence: write the next ready message once the last one is fenced.
    void WriteNext(uint32_t end);
    void EndFence(uint32_t end);
    void Consumed(uint32_t recv);
    void OnSendDone(uint32_t end, uint32_t tag);
    void OnCredit(uint32_t end, uint64_t bytes, uint32_t tag);
    void OnData(uint32_t end, uint64_t bytes, uint32_t tag);
    void TakeData(uint32_t end, uint64_t bytes, uint32_t tag);
    void CheckDone();

    uint32_t m_rank{0};
    uint32_t m_fifoSlots;
    Time m_sliceFence;
    std::vector<SendEnd> m_sendEnds;
    std::vector<RecvEnd> m_recvEnds;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_sendIndex; //!< (channel, peer)
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_recvIndex;

    // The running collective.
    std::shared_ptr<const RankProgram> m_program;
    OpConfig m_config;
    DoneCallback m_done;
    bool m_running{false};
    bool m_begun{false};
    std::vector<uint32_t> m_sendQueueEnd;  //!< send queue -> send end
    std::vector<uint32_t> m_recvQueueEnd;  //!< receive queue -> receive end
    std::vector<uint32_t> m_sendHead;      //!< per send queue: next op
    std::vector<uint32_t> m_recvNext;      //!< per receive queue: next op
    std::vector<uint32_t> m_depsLeft;      //!< per send
    std::vector<uint32_t> m_consumersLeft; //!< per receive
    uint32_t m_sendsDone{0};
    uint32_t m_recvsArrived{0};
    uint64_t m_opBytes{0};
    uint64_t m_bytesSent{0};

    TracedCallback<uint32_t, uint32_t, uint64_t> m_doneTrace;
};

} // namespace ns3

#endif /* GPU_RANK_H */
