/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cable-end-counters.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/wire-bytes.h"

namespace ns3
{

namespace
{

void
Put(std::vector<uint8_t>& out, uint64_t v)
{
    out.resize(out.size() + 8);
    WriteBe64(out.data() + out.size() - 8, v);
}

uint64_t
Take(const std::vector<uint8_t>& in, size_t& at)
{
    NS_ABORT_MSG_IF(at + 8 > in.size(), "CableEndCounters: truncated counters");
    at += 8;
    return ReadBe64(in.data() + at - 8);
}

} // namespace

bool
CableEndCounters::IsLocal(uint32_t node)
{
    return FabricSimulatorImpl::RunsHere(node);
}

void
CableEndCounters::Add(uint32_t node, uint32_t device, const std::vector<uint64_t>& values)
{
    const uint32_t process = NodeList::GetNode(node)->GetSystemId();
    if (m_out.size() <= process)
    {
        m_out.resize(process + 1);
    }
    std::vector<uint8_t>& out = m_out[process];
    Put(out, node);
    Put(out, device);
    Put(out, values.size());
    for (uint64_t v : values)
    {
        Put(out, v);
    }
}

void
CableEndCounters::Swap(PartitionExchange& exchange)
{
    m_out.resize(std::max<size_t>(m_out.size(), exchange.GetSize()));
    const std::vector<uint8_t> in = exchange.Exchange(m_out);
    m_out.clear();
    size_t at = 0;
    while (at < in.size())
    {
        const uint32_t node = static_cast<uint32_t>(Take(in, at));
        const uint32_t device = static_cast<uint32_t>(Take(in, at));
        std::vector<uint64_t>& values = m_received[{node, device}];
        values.resize(Take(in, at));
        for (uint64_t& v : values)
        {
            v = Take(in, at);
        }
    }
}

void
CableEndCounters::SwapSenders(
    PartitionExchange* across,
    const std::function<Ptr<NetDevice>(const Ptr<NetDevice>&)>& peerOf,
    const std::function<std::vector<uint64_t>(const Ptr<NetDevice>&)>& values)
{
    if (!across)
    {
        return;
    }
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if (!IsLocal((*it)->GetId()))
        {
            continue;
        }
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i)
        {
            const Ptr<NetDevice> d = (*it)->GetDevice(i);
            const Ptr<NetDevice> peer = peerOf(d);
            if (peer && !IsLocal(peer->GetNode()->GetId()))
            {
                Add(peer->GetNode()->GetId(), peer->GetIfIndex(), values(d));
            }
        }
    }
    Swap(*across);
}

const std::vector<uint64_t>*
CableEndCounters::Find(uint32_t node, uint32_t device) const
{
    auto it = m_received.find({node, device});
    return it == m_received.end() ? nullptr : &it->second;
}

} // namespace ns3
