/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NVLINK_CONNECTION_H
#define NVLINK_CONNECTION_H

#include "collective-connection.h"
#include "nv-switch.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A CollectiveConnection between two GPUs of one node over NVLink, as NCCL's P2P
 * transport: the sender writes straight into the receiver's buffer (no sender buffer), each
 * end on its own NvSwitch stream, so a connection's messages arrive in order. A message is
 * complete at the sender when it arrived.
 */
class NvLinkConnection : public CollectiveConnection
{
  public:
    static TypeId GetTypeId();
    NvLinkConnection();

    void Send(uint64_t bytes, uint32_t tag) override;
    bool HasSenderBuffer() const override;
    void SetKernelRate(double wireBytesPerSecond) override;
    void ShareKernel(Ptr<CollectiveConnection> other) override;

    /// The switch stream this end sends on (to join it to an NVLS group).
    uint32_t GetStream() const;
    /**
     * The share of the links' bandwidth this end's messages get: a message of b bytes
     * occupies the ports as b / efficiency would (NVLS's multimem operations: NCCL's
     * nvlsEfficiency, src/graph/tuning.cc). 1 by default.
     */
    void SetEfficiency(double efficiency);

    /// The two ends of a connection between GPUs a and b of one switch (each sends on its
    /// own stream); their idle latency is the switch's for a small message.
    static std::pair<Ptr<NvLinkConnection>, Ptr<NvLinkConnection>> Connect(Ptr<NvSwitch> nvswitch,
                                                                           uint32_t a,
                                                                           uint32_t b);

  protected:
    void DoDispose() override;

  private:
    Ptr<NvSwitch> m_switch;
    uint32_t m_stream{0};
    double m_efficiency{1};
    NvLinkConnection* m_peer{nullptr}; //!< both ends live as long as their ranks
};

} // namespace ns3

#endif /* NVLINK_CONNECTION_H */
