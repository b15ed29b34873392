/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_APP_H
#define COLLECTIVE_APP_H

#include "collective-connection.h"
#include "ring-all-reduce.h"

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One rank of a communicator, running on its host as an ns-3 Application: it owns
 * the rank's connections to its ring neighbours and runs collectives one after another
 * (like one NCCL stream), calling back when each finishes at this rank.
 *
 * Chunking defaults are NCCL 2.30's Simple protocol (src/init.cc, src/include/collectives.h;
 * shared/reference/nccl.md 1.1): a 4 MiB buffer in NCCL_STEPS = 8 slots of 512 KiB, chunks of
 * CHUNKSTEPS = 4 slots (2 MiB) sent as slices of SLICESTEPS = 2 slots (1 MiB).
 */
class CollectiveApp : public Application
{
  public:
    static TypeId GetTypeId();
    CollectiveApp();
    ~CollectiveApp() override;

    /// Signature of the CollectiveDone trace: (rank, operation index, bytes sent).
    typedef void (*DoneTracedCallback)(uint32_t rank, uint32_t opIndex, uint64_t bytes);
    /// Called when a collective finishes at this rank: (rank, operation index).
    typedef Callback<void, uint32_t, uint32_t> DoneCallback;

    void SetRank(uint32_t rank, uint32_t nRanks);
    uint32_t GetRank() const;
    /// Connections of this rank in the ring: to rank+1 (sends) and from rank-1 (receives).
    void SetRingConnections(Ptr<CollectiveConnection> toNext, Ptr<CollectiveConnection> fromPrev);
    /// The connection to rank+1 (null before SetRingConnections).
    Ptr<CollectiveConnection> GetConnectionToNext() const;
    /// The connection from rank-1 (null before SetRingConnections).
    Ptr<CollectiveConnection> GetConnectionFromPrev() const;

    /**
     * Start a ring all-reduce of the given size now.
     * \param bytes buffer size per rank
     * \param opIndex the operation's index in this communicator's sequence
     * \param done called when this rank has sent and received everything
     */
    void StartAllReduce(uint64_t bytes, uint32_t opIndex, DoneCallback done);

    /// The schedule this rank uses for an all-reduce of this size (same on every rank).
    RingAllReduceSchedule MakeRingSchedule(uint64_t bytes) const;
    uint64_t GetBytesSent() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Post(uint64_t bytes, uint32_t seq);
    void SendDone(uint32_t tag);
    void Received(uint64_t bytes, uint32_t tag);
    void OpDone();

    static uint32_t MakeTag(uint32_t opIndex, uint32_t seq);

    uint32_t m_rank{0};
    uint32_t m_nRanks{0};
    uint64_t m_chunkBytes;
    uint32_t m_slicesPerChunk;
    uint32_t m_maxOutstanding;
    Ptr<CollectiveConnection> m_toNext;
    Ptr<CollectiveConnection> m_fromPrev;
    std::unique_ptr<RingAllReduce> m_op;
    uint32_t m_opIndex{0};
    DoneCallback m_opDone;
    /// Messages of a later operation that arrived before this rank started it.
    std::vector<std::pair<uint64_t, uint32_t>> m_early;
    uint64_t m_bytesSent{0};
    TracedCallback<uint32_t, uint32_t, uint64_t> m_doneTrace; //!< (rank, op index, bytes)
};

} // namespace ns3

#endif /* COLLECTIVE_APP_H */
