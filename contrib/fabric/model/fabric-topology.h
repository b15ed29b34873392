/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FABRIC_TOPOLOGY_H
#define FABRIC_TOPOLOGY_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief An abstract graph of hosts, switches and full-duplex links.
 *
 * The graph knows nothing about link layers (RoCE, InfiniBand, TCP): stacks turn it into
 * NetDevices and channels. Ports are numbered per node in the order links were added, so
 * port p of node n is GetPorts(n)[p].
 *
 * Mistakes in use (unknown node id, self-loop, duplicate name) throw std::invalid_argument or
 * std::out_of_range, so that topology readers can turn them into user errors.
 */
class FabricTopology
{
  public:
    /** What a node is. */
    enum NodeKind
    {
        HOST,  //!< An end host (NIC or HCA); never forwards traffic.
        SWITCH //!< A switch; forwards traffic.
    };

    /** One node of the graph. */
    struct Node
    {
        NodeKind kind;         //!< Host or switch.
        std::string name;      //!< Unique name, e.g. "host3", "edge1-0", "core2".
        uint32_t tier;         //!< 0 host, 1 edge/leaf, 2 aggregation/spine, 3 core.
        int32_t pod;           //!< Pod index, or -1 where pods do not apply.
        uint32_t partition{0}; //!< The partition (MPI rank) that simulates it.
    };

    /** One full-duplex link. */
    struct Link
    {
        uint32_t nodeA;   //!< Node id of end A.
        uint32_t portA;   //!< Port index of this link on node A.
        uint32_t nodeB;   //!< Node id of end B.
        uint32_t portB;   //!< Port index of this link on node B.
        uint64_t rateBps; //!< Rate in bit/s, in each direction.
        Time delay;       //!< One-way propagation delay.
    };

    /** A (node, port) pair. */
    using PortRef = std::pair<uint32_t, uint32_t>;

    /**
     * \brief Add a node.
     * \param kind host or switch
     * \param name unique name
     * \param tier 0 host, 1 edge/leaf, 2 aggregation/spine, 3 core
     * \param pod pod index, or -1
     * \return the new node id (ids are dense, starting at 0)
     */
    uint32_t AddNode(NodeKind kind, const std::string& name, uint32_t tier, int32_t pod = -1);

    /**
     * \brief Add a full-duplex link; it takes the next free port on each end.
     * \param a node id of one end
     * \param b node id of the other end
     * \param rateBps rate in bit/s
     * \param delay one-way propagation delay
     * \return the new link id
     */
    uint32_t AddLink(uint32_t a, uint32_t b, uint64_t rateBps, Time delay);

    /** \return the number of nodes */
    uint32_t GetNNodes() const;
    /** \param i node id \return the node */
    const Node& GetNode(uint32_t i) const;

    /**
     * \brief Split the nodes into `partitions` parts (docs/distributed.md): pod p and its
     * hosts go to part p * partitions / pods, the nodes without a pod (the core) to
     * i * partitions / n in their order, so that every part gets whole pods and an equal share
     * of the core. Without pods, nodes are split in id order into equal runs.
     * \param partitions >= 1
     */
    void AssignPartitions(uint32_t partitions);
    /**
     * \brief Put each node in the partition chosen for it (a scenario file's "partition").
     * \param partitionOf one partition per node, by node id, each below `partitions`
     * \param partitions >= 1
     */
    void AssignPartitions(const std::vector<uint32_t>& partitionOf, uint32_t partitions);
    /// The number of partitions AssignPartitions made (1 before).
    uint32_t GetNPartitions() const;
    /** \return the number of links */
    uint32_t GetNLinks() const;
    /** \param i link id \return the link */
    const Link& GetLink(uint32_t i) const;
    /** \return node ids of hosts, in host-index order */
    const std::vector<uint32_t>& GetHosts() const;
    /** \return the number of hosts */
    uint32_t GetNHosts() const;
    /** \param nodeId node id \return the host index of this node, or -1 if it is a switch */
    int32_t GetHostIndex(uint32_t nodeId) const;
    /** \param nodeId node id \return link ids of the node's ports, in port order */
    const std::vector<uint32_t>& GetPorts(uint32_t nodeId) const;
    /**
     * \param nodeId node id
     * \param port port index on that node
     * \return the node and port at the other end of the link
     */
    PortRef GetPeer(uint32_t nodeId, uint32_t port) const;
    /**
     * \param name a node name
     * \return the node id, or -1 if no node has that name
     */
    int64_t FindNode(const std::string& name) const;

  private:
    /** Throw std::out_of_range unless \p nodeId names a node. \param nodeId the id */
    void CheckNode(uint32_t nodeId) const;

    std::vector<Node> m_nodes;                       //!< Nodes by id.
    uint32_t m_partitions{1};                        //!< AssignPartitions' count.
    std::vector<Link> m_links;                       //!< Links by id.
    std::vector<std::vector<uint32_t>> m_ports;      //!< Per node: link id of each port.
    std::vector<uint32_t> m_hosts;                   //!< Host index -> node id.
    std::vector<int32_t> m_hostIndex;                //!< Node id -> host index or -1.
    std::unordered_map<std::string, uint32_t> m_ids; //!< Name -> node id.
};

} // namespace ns3

#endif /* FABRIC_TOPOLOGY_H */
