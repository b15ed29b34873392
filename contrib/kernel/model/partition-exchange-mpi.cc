/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PartitionExchange over MPI (the MPI build, ./ns3 configure --enable-mpi): one partition per
 * rank of MPI_COMM_WORLD.
 */
#include "partition-exchange.h"

#include "ns3/abort.h"

#include <mpi.h>

namespace ns3
{

namespace
{

/// Where each rank's part starts in the concatenation of parts of these lengths (MPI's
/// displacements), and the last entry their total.
std::vector<int>
Displacements(const std::vector<int>& lengths)
{
    std::vector<int> at(lengths.size() + 1, 0);
    for (std::size_t r = 0; r < lengths.size(); ++r)
    {
        at[r + 1] = at[r] + lengths[r];
    }
    return at;
}

class MpiPartitionExchange final : public PartitionExchange
{
  public:
    MpiPartitionExchange(int rank, int size, bool finalize)
        : m_rank(rank),
          m_size(size),
          m_finalize(finalize)
    {
    }

    ~MpiPartitionExchange() override
    {
        if (m_finalize)
        {
            MPI_Finalize();
        }
    }

    uint32_t GetRank() const override
    {
        return static_cast<uint32_t>(m_rank);
    }

    uint32_t GetSize() const override
    {
        return static_cast<uint32_t>(m_size);
    }

    std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out) override
    {
        NS_ABORT_MSG_UNLESS(out.size() == static_cast<std::size_t>(m_size),
                            "MpiPartitionExchange: " << out.size() << " outboxes for " << m_size
                                                     << " ranks");
        std::vector<int> sendCounts(m_size);
        std::vector<int> sendOffsets(m_size);
        std::vector<uint8_t> send;
        for (int r = 0; r < m_size; ++r)
        {
            NS_ABORT_MSG_IF(out[r].size() > (1u << 30),
                            "MpiPartitionExchange: a window of " << out[r].size() << " bytes");
            sendOffsets[r] = static_cast<int>(send.size());
            sendCounts[r] = static_cast<int>(out[r].size());
            send.insert(send.end(), out[r].begin(), out[r].end());
        }
        std::vector<int> recvCounts(m_size);
        MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        const std::vector<int> recvOffsets = Displacements(recvCounts);
        std::vector<uint8_t> in(recvOffsets.back());
        MPI_Alltoallv(send.data(),
                      sendCounts.data(),
                      sendOffsets.data(),
                      MPI_BYTE,
                      in.data(),
                      recvCounts.data(),
                      recvOffsets.data(),
                      MPI_BYTE,
                      MPI_COMM_WORLD);
        return in;
    }

    void Agree(Window& w) override
    {
        // One reduction, all minima: the earliest next event, whether every rank still runs,
        // whether every rank asked to stop, whether every rank is at the barrier, the latest
        // arrival there (as the least complement), the earliest notice.
        uint64_t mine[6] = {w.nextTs,
                            w.stopped ? 0u : 1u,
                            w.allAskedToStop ? 1u : 0u,
                            w.atBarrier ? 1u : 0u,
                            UINT64_MAX - (w.atBarrier ? w.barrierTs : 0),
                            w.noticeTs};
        uint64_t all[6];
        MPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        w.nextTs = all[0];
        w.stopped = all[1] == 0;
        w.allAskedToStop = all[2] == 1;
        w.atBarrier = all[3] == 1;
        w.barrierTs = UINT64_MAX - all[4];
        w.noticeTs = all[5];
    }

    std::vector<uint8_t> Share(const std::vector<uint8_t>& bytes) override
    {
        NS_ABORT_MSG_IF(bytes.size() > (1u << 30),
                        "MpiPartitionExchange: " << bytes.size() << " bytes to share");
        const int length = static_cast<int>(bytes.size());
        std::vector<int> lengths(m_size);
        MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
        const std::vector<int> offsets = Displacements(lengths);
        std::vector<uint8_t> all(offsets.back());
        MPI_Allgatherv(bytes.data(),
                       length,
                       MPI_BYTE,
                       all.data(),
                       lengths.data(),
                       offsets.data(),
                       MPI_BYTE,
                       MPI_COMM_WORLD);
        return all;
    }

    std::vector<std::string> Gather(const std::string& text) override
    {
        const int length = static_cast<int>(text.size());
        std::vector<int> lengths(m_size);
        MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        const std::vector<int> offsets = Displacements(lengths);
        std::vector<char> all(m_rank == 0 ? offsets.back() : 0);
        MPI_Gatherv(text.data(),
                    length,
                    MPI_CHAR,
                    all.data(),
                    lengths.data(),
                    offsets.data(),
                    MPI_CHAR,
                    0,
                    MPI_COMM_WORLD);
        std::vector<std::string> texts;
        if (m_rank == 0)
        {
            for (int r = 0; r < m_size; ++r)
            {
                texts.emplace_back(all.data() + offsets[r], lengths[r]);
            }
        }
        return texts;
    }

    uint64_t Max(uint64_t value) override
    {
        uint64_t all = 0;
        MPI_Allreduce(&value, &all, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        return all;
    }

  private:
    int m_rank;
    int m_size;
    bool m_finalize; //!< this exchange initialised MPI
};

} // namespace

std::unique_ptr<PartitionExchange>
PartitionExchange::FromLauncher(int* argc, char*** argv)
{
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised)
    {
        MPI_Init(argc, argv);
    }
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1)
    {
        if (!initialised)
        {
            MPI_Finalize();
        }
        return nullptr;
    }
    return std::make_unique<MpiPartitionExchange>(rank, size, !initialised);
}

bool
PartitionExchange::HasMpi()
{
    return true;
}

} // namespace ns3
