/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef GPU_LAYOUT_H
#define GPU_LAYOUT_H

#include <cstdint>
#include <vector>

namespace ns3
{

class RailOptimizedBuilder;

/**
 * \ingroup collectives
 * \brief How a communicator's GPUs sit on a fabric: nodes (servers) of gpusPerNode GPUs and
 * nicsPerNode NICs, each NIC a host of the fabric. Ranks are node x gpusPerNode + local, as
 * when a launcher starts one process per GPU in order. Local GPU g uses NIC
 * g x nicsPerNode / gpusPerNode: its own NIC when there are as many (rail-optimised), a
 * shared one when fewer (GPUs per NIC must then be a whole number).
 *
 * Mistakes (zero counts, a host list of the wrong size, GPUs that do not divide among the
 * NICs) throw std::invalid_argument, for programs to turn into user errors.
 */
class GpuLayout
{
  public:
    /**
     * \param nNodes nodes (>= 1)
     * \param gpusPerNode GPUs per node (>= 1)
     * \param nicsPerNode NICs per node (>= 1)
     * \param nicHosts fabric host of NIC i of node n at n x nicsPerNode + i
     */
    GpuLayout(uint32_t nNodes,
              uint32_t gpusPerNode,
              uint32_t nicsPerNode,
              std::vector<uint32_t> nicHosts);

    /// One GPU and one NIC per host: node h is host h.
    static GpuLayout OnePerHost(uint32_t nHosts);
    /// The servers of a rail-optimised fabric with this many GPUs each.
    static GpuLayout OnRails(const RailOptimizedBuilder& fabric, uint32_t gpusPerNode);

    uint32_t GetNNodes() const;
    uint32_t GetGpusPerNode() const;
    uint32_t GetNicsPerNode() const;
    uint32_t GetNRanks() const;
    uint32_t GetNode(uint32_t rank) const;
    uint32_t GetLocal(uint32_t rank) const;
    /// The NIC a local GPU uses.
    uint32_t GetNic(uint32_t localGpu) const;
    /// The first local GPU that uses a NIC (the one next to it; PXN's proxy); throws
    /// std::out_of_range for a NIC no GPU uses (more NICs than GPUs).
    uint32_t GetNicGpu(uint32_t nic) const;
    /// Each used NIC's first GPU, in NIC order: one per NIC, or every GPU when the GPUs have
    /// more NICs than one each.
    std::vector<uint32_t> GetRailGpus() const;
    /// The fabric host of a node's NIC.
    uint32_t GetNicHost(uint32_t node, uint32_t nic) const;
    /// The fabric host of a rank's NIC.
    uint32_t GetHost(uint32_t rank) const;
    /**
     * The layout of a group of these ranks, for a communicator of its own: its nodes in the
     * order the ranks first name them, each with the same number of the group's GPUs (the
     * group's ranks must come node by node), each GPU on the host of its own NIC here.
     * \param ranks the group's ranks here, in its rank order
     * \return the group's layout: its rank i is ranks[i]
     * \throw std::invalid_argument for ranks that do not come node by node, or nodes with
     * different numbers of them
     */
    GpuLayout Subset(const std::vector<uint32_t>& ranks) const;

  private:
    uint32_t m_nodes;
    uint32_t m_gpus;
    uint32_t m_nics;
    std::vector<uint32_t> m_nicHosts;
};

} // namespace ns3

#endif /* GPU_LAYOUT_H */
