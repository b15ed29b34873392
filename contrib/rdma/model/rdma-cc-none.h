/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_NONE_H
#define RDMA_CC_NONE_H

#include "rdma-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup rdma
 * \brief No congestion control: every queue pair sends at line rate with no window,
 * as an RNIC does with DCQCN disabled (the set-up Meta reports for its RoCE training
 * fabric, Gangidi et al., SIGCOMM'24).
 */
class RdmaCcNone : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    DataRate GetRate() const override;
};

} // namespace ns3

#endif /* RDMA_CC_NONE_H */
