/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fabric-topology.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTopology");

uint32_t
FabricTopology::AddNode(NodeKind kind, const std::string& name, uint32_t tier, int32_t pod)
{
    NS_LOG_FUNCTION(this << kind << name << tier << pod);
    // Names are how scenario files and reports refer to nodes, so they must be unique.
    if (name.empty())
    {
        throw std::invalid_argument("FabricTopology: a node needs a name");
    }
    const auto id = static_cast<uint32_t>(m_nodes.size());
    if (!m_ids.emplace(name, id).second)
    {
        throw std::invalid_argument("FabricTopology: duplicate node name \"" + name + "\"");
    }
    m_nodes.push_back(Node{kind, name, tier, pod});
    m_ports.emplace_back();
    if (kind == HOST)
    {
        m_hostIndex.push_back(static_cast<int32_t>(m_hosts.size()));
        m_hosts.push_back(id);
    }
    else
    {
        m_hostIndex.push_back(-1);
    }
    return id;
}

uint32_t
FabricTopology::AddLink(uint32_t a, uint32_t b, uint64_t rateBps, Time delay)
{
    NS_LOG_FUNCTION(this << a << b << rateBps << delay);
    CheckNode(a);
    CheckNode(b);
    if (a == b)
    {
        throw std::invalid_argument("FabricTopology: link from node \"" + m_nodes[a].name +
                                    "\" to itself");
    }
    if (rateBps == 0 || delay.IsStrictlyNegative())
    {
        throw std::invalid_argument("FabricTopology: link needs a positive rate and a delay >= 0");
    }
    const auto id = static_cast<uint32_t>(m_links.size());
    const auto portA = static_cast<uint32_t>(m_ports[a].size());
    const auto portB = static_cast<uint32_t>(m_ports[b].size());
    m_links.push_back(Link{a, portA, b, portB, rateBps, delay});
    m_ports[a].push_back(id);
    m_ports[b].push_back(id);
    return id;
}

uint32_t
FabricTopology::GetNNodes() const
{
    return static_cast<uint32_t>(m_nodes.size());
}

const FabricTopology::Node&
FabricTopology::GetNode(uint32_t i) const
{
    CheckNode(i);
    return m_nodes[i];
}

uint32_t
FabricTopology::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

const FabricTopology::Link&
FabricTopology::GetLink(uint32_t i) const
{
    if (i >= m_links.size())
    {
        throw std::out_of_range("FabricTopology: no link " + std::to_string(i));
    }
    return m_links[i];
}

const std::vector<uint32_t>&
FabricTopology::GetHosts() const
{
    return m_hosts;
}

uint32_t
FabricTopology::GetNHosts() const
{
    return static_cast<uint32_t>(m_hosts.size());
}

int32_t
FabricTopology::GetHostIndex(uint32_t nodeId) const
{
    CheckNode(nodeId);
    return m_hostIndex[nodeId];
}

const std::vector<uint32_t>&
FabricTopology::GetPorts(uint32_t nodeId) const
{
    CheckNode(nodeId);
    return m_ports[nodeId];
}

FabricTopology::PortRef
FabricTopology::GetPeer(uint32_t nodeId, uint32_t port) const
{
    CheckNode(nodeId);
    if (port >= m_ports[nodeId].size())
    {
        throw std::out_of_range("FabricTopology: node \"" + m_nodes[nodeId].name +
                                "\" has no port " + std::to_string(port));
    }
    const Link& link = m_links[m_ports[nodeId][port]];
    // A link joins two distinct nodes, so the end that is not (nodeId, port) is the peer.
    if (link.nodeA == nodeId && link.portA == port)
    {
        return {link.nodeB, link.portB};
    }
    return {link.nodeA, link.portA};
}

int64_t
FabricTopology::FindNode(const std::string& name) const
{
    auto it = m_ids.find(name);
    return it == m_ids.end() ? -1 : static_cast<int64_t>(it->second);
}

void
FabricTopology::CheckNode(uint32_t nodeId) const
{
    if (nodeId >= m_nodes.size())
    {
        throw std::out_of_range("FabricTopology: no node " + std::to_string(nodeId));
    }
}

void
FabricTopology::AssignPartitions(uint32_t partitions)
{
    NS_ABORT_MSG_IF(partitions == 0, "FabricTopology::AssignPartitions: 0 partitions");
    uint32_t pods = 0;
    uint32_t podless = 0;
    for (const Node& n : m_nodes)
    {
        if (n.pod >= 0)
        {
            pods = std::max(pods, static_cast<uint32_t>(n.pod) + 1);
        }
        else
        {
            ++podless;
        }
    }
    uint32_t nthPodless = 0;
    for (uint32_t i = 0; i < m_nodes.size(); ++i)
    {
        Node& n = m_nodes[i];
        if (pods == 0)
        {
            n.partition = static_cast<uint32_t>(uint64_t(i) * partitions / m_nodes.size());
        }
        else if (n.pod >= 0)
        {
            n.partition = static_cast<uint32_t>(uint64_t(n.pod) * partitions / pods);
        }
        else
        {
            n.partition = static_cast<uint32_t>(uint64_t(nthPodless++) * partitions / podless);
        }
    }
    m_partitions = partitions;
}

void
FabricTopology::AssignPartitions(const std::vector<uint32_t>& partitionOf, uint32_t partitions)
{
    NS_ABORT_MSG_IF(partitionOf.size() != m_nodes.size(),
                    "FabricTopology::AssignPartitions: " << partitionOf.size() << " partitions for "
                                                         << m_nodes.size() << " nodes");
    for (uint32_t i = 0; i < m_nodes.size(); ++i)
    {
        NS_ABORT_MSG_IF(partitionOf[i] >= partitions,
                        "FabricTopology::AssignPartitions: node "
                            << i << " in partition " << partitionOf[i] << " of " << partitions);
        m_nodes[i].partition = partitionOf[i];
    }
    m_partitions = partitions;
}

uint32_t
FabricTopology::GetNPartitions() const
{
    return m_partitions;
}

} // namespace ns3
