/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PXN_CONNECTION_H
#define PXN_CONNECTION_H

#include "collective-connection.h"
#include "nv-switch.h"

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The sending end of a network connection that leaves its node through another
 * GPU's NIC (NCCL's PXN, on by default since 2.12): the sender writes each message over
 * NVLink into the proxy GPU's buffer, whose NIC posts it on the network connection in the
 * same order. Completions and the receiver's credits come back on the network connection.
 */
class PxnConnection : public CollectiveConnection
{
  public:
    static TypeId GetTypeId();
    PxnConnection();

    /**
     * \param nvswitch the node's NVLink domain
     * \param src the sending GPU
     * \param proxy the GPU whose NIC carries the connection (!= src)
     * \param net the network connection from the proxy's NIC (its sending end)
     */
    void Setup(Ptr<NvSwitch> nvswitch, uint32_t src, uint32_t proxy, Ptr<CollectiveConnection> net);
    Ptr<CollectiveConnection> GetNetworkConnection() const;

    void Send(uint64_t bytes, uint32_t tag) override;

  protected:
    void DoDispose() override;

  private:
    Ptr<NvSwitch> m_switch;
    uint32_t m_stream{0};
    Ptr<CollectiveConnection> m_net;
};

} // namespace ns3

#endif /* PXN_CONNECTION_H */
