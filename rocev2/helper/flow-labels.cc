/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-labels.h"

#include "ns3/roce-nic-device.h"

namespace ns3
{

void
FlowLabels::Add(Ipv4Address senderAddress,
                Ptr<const RdmaQueuePair> sender,
                const nlohmann::json& label)
{
    const Ipv4Address peer = Ipv4Address::ConvertFrom(sender->GetPeer());
    auto put = [this, &label](DeadlockDetector::FlowKey key, const char* direction) {
        nlohmann::json l = label;
        l["direction"] = direction;
        m_labels[key].push_back(std::move(l));
    };
    put({senderAddress,
         RoceNicDevice::SourcePortOfQp(sender->GetQpn()),
         peer,
         RoceNicDevice::ROCEV2_PORT},
        "data");
    put({peer,
         RoceNicDevice::SourcePortOfQp(sender->GetRemoteQpn()),
         senderAddress,
         RoceNicDevice::ROCEV2_PORT},
        "ack");
}

nlohmann::json
FlowLabels::Lookup(const DeadlockDetector::FlowKey& key) const
{
    auto it = m_labels.find(key);
    if (it == m_labels.end())
    {
        return nullptr;
    }
    if (it->second.size() == 1)
    {
        return it->second.front();
    }
    return {{"candidates", it->second}};
}

DeadlockDetector::FlowLabeler
FlowLabels::GetLabeler() const
{
    return DeadlockDetector::FlowLabeler(
        [this](const DeadlockDetector::FlowKey& key) { return Lookup(key); });
}

size_t
FlowLabels::GetSize() const
{
    return m_labels.size();
}

std::string
FlowLabels::Describe(const DeadlockDetector::StuckFlow& flow)
{
    const nlohmann::json& l = flow.label;
    std::string text;
    if (l.contains("flow"))
    {
        text = "flow " + l["flow"].dump();
    }
    else if (l.contains("collective"))
    {
        text = "collective " + l["collective"].dump() + " (" + l.value("op", "") + ") rank " +
               l["rank"].dump() + "->" + l["peer_rank"].dump() + " channel " + l["channel"].dump();
    }
    else if (l.contains("candidates"))
    {
        text = "one of " + std::to_string(l["candidates"].size()) + " queue pairs";
    }
    else
    {
        return "unknown flow " + flow.key.ToString();
    }
    if (l.contains("src"))
    {
        text += " " + l.value("src", "") + "->" + l.value("dst", "");
    }
    if (l.value("direction", "") == "ack")
    {
        text += " (acks)";
    }
    return text + " " + flow.key.ToString();
}

} // namespace ns3
