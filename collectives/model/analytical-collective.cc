/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "analytical-collective.h"

#include "alpha-beta-model.h"
#include "bus-bandwidth.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AnalyticalCollective");

namespace
{
AnalyticalCollective::Result
FromEstimate(const NcclTuner& tuner,
             CollectiveOp op,
             uint64_t perRankBytes,
             const NcclTuner::Estimate& e)
{
    AnalyticalCollective::Result r;
    r.mode = AnalyticalCollective::Mode::NCCL_TUNER;
    r.op = op;
    r.nRanks = tuner.GetRanks();
    r.perRankBytes = perRankBytes;
    r.sizeBytes = BusBandwidth::SizeBytes(op, r.nRanks, perRankBytes);
    r.algorithm = e.algorithm;
    r.protocol = e.protocol;
    r.seconds = e.timeUs * 1e-6;
    r.latencySeconds = e.latencyUs * 1e-6;
    r.algBwGBps = BusBandwidth::AlgBw(r.sizeBytes, r.seconds);
    r.busBwGBps = BusBandwidth::BusBw(op, r.nRanks, r.sizeBytes, r.seconds);
    return r;
}
} // namespace

AnalyticalCollective::Result
AnalyticalCollective::Tuned(const NcclTuner& tuner, CollectiveOp op, uint64_t perRankBytes)
{
    const uint64_t size = BusBandwidth::SizeBytes(op, tuner.GetRanks(), perRankBytes);
    return FromEstimate(tuner, op, perRankBytes, tuner.Pick(op, size));
}

AnalyticalCollective::Result
AnalyticalCollective::Tuned(const NcclTuner& tuner,
                            CollectiveOp op,
                            uint64_t perRankBytes,
                            NcclAlgorithm algorithm,
                            NcclProtocol protocol)
{
    const uint64_t size = BusBandwidth::SizeBytes(op, tuner.GetRanks(), perRankBytes);
    const NcclTuner::Estimate e = tuner.Predict(op, size, algorithm, protocol);
    NS_ABORT_MSG_IF(!e.available,
                    "NCCL tuner: no estimate for " << CollectiveOpName(op) << " with "
                                                   << NcclAlgorithmName(algorithm) << "/"
                                                   << NcclProtocolName(protocol));
    return FromEstimate(tuner, op, perRankBytes, e);
}

AnalyticalCollective::Result
AnalyticalCollective::AlphaBeta(CollectiveOp op,
                                uint32_t nRanks,
                                uint64_t perRankBytes,
                                double alphaSeconds,
                                double linkBytesPerSecond)
{
    NS_ABORT_MSG_IF(nRanks < 2, "alpha-beta model: a collective needs at least 2 ranks");
    Result r;
    r.mode = Mode::ALPHA_BETA;
    r.op = op;
    r.nRanks = nRanks;
    r.perRankBytes = perRankBytes;
    r.sizeBytes = BusBandwidth::SizeBytes(op, nRanks, perRankBytes);
    r.algorithm = NcclAlgorithm::RING;
    r.protocol = NcclProtocol::SIMPLE;
    r.seconds = AlphaBetaModel::RingCollectiveSeconds(op,
                                                      nRanks,
                                                      r.sizeBytes,
                                                      alphaSeconds,
                                                      linkBytesPerSecond);
    r.latencySeconds = AlphaBetaModel::RingSteps(op, nRanks) * alphaSeconds;
    r.algBwGBps = BusBandwidth::AlgBw(r.sizeBytes, r.seconds);
    r.busBwGBps = BusBandwidth::BusBw(op, nRanks, r.sizeBytes, r.seconds);
    return r;
}

std::string
AnalyticalCollective::ModeName(Mode mode)
{
    return mode == Mode::NCCL_TUNER ? "tuner" : "alpha-beta";
}

} // namespace ns3
