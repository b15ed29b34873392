/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_LABELS_H
#define FLOW_LABELS_H

#include "deadlock-detector.h"

#include "ns3/ipv4-address.h"
#include "ns3/rdma-queue-pair.h"

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A 5-tuple -> label table, the lookup a program gives DeadlockDetector::SetFlowLabeler.
 *
 * The program registers each sending queue pair it starts with a JSON object that names it in
 * its own terms (which flow of the workload, which rank of which collective); the table derives
 * the two 5-tuples its packets carry on a RoCEv2 fabric (RoceNicDevice's encapsulation): data,
 * sender address : SourcePortOfQp(QPN) -> peer address : 4791, labelled "direction": "data";
 * and what the receiving QP sends back (ACK, NAK, CNP), peer address : SourcePortOfQp(remote
 * QPN) -> sender address : 4791, labelled "direction": "ack".
 *
 * The source port is a 14-bit hash of the QPN, so two QPs between the same two hosts may share a
 * 5-tuple (as on a real fabric); such a 5-tuple is labelled {"candidates": [label, ...]}.
 */
class FlowLabels
{
  public:
    /**
     * Name the packets of a queue pair (and its peer's replies); call once its peer is set.
     * \param senderAddress the IPv4 address of the sender's NIC
     * \param sender the sending queue pair
     * \param label a JSON object naming it
     */
    void Add(Ipv4Address senderAddress,
             Ptr<const RdmaQueuePair> sender,
             const nlohmann::json& label);
    /// The label of a 5-tuple (with its "direction"), or null for one never added.
    nlohmann::json Lookup(const DeadlockDetector::FlowKey& key) const;
    /// A labeler that looks this table up; the table must outlive the detector's use of it.
    DeadlockDetector::FlowLabeler GetLabeler() const;
    /// Number of 5-tuples known.
    size_t GetSize() const;
    /**
     * A stuck flow as a deadlock report prints it: what its label says (a flow of the
     * workload, or a collective's rank, peer and channel; the candidates of a shared 5-tuple),
     * then the 5-tuple.
     * \param flow a flow of a deadlock report
     * \return e.g. "flow 3 h0->h2 10.0.0.1:49152->10.0.0.3:4791"
     */
    static std::string Describe(const DeadlockDetector::StuckFlow& flow);

  private:
    std::map<DeadlockDetector::FlowKey, std::vector<nlohmann::json>> m_labels;
};

} // namespace ns3

#endif /* FLOW_LABELS_H */
