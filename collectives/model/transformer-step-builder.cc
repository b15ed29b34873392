/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-step-builder.h"

#include "ns3/abort.h"

#include <algorithm>
#include <vector>

namespace ns3
{

namespace
{
using Config = TransformerStepBuilder::Config;

uint64_t
AttentionParams(const Config& c)
{
    const uint64_t h = c.hidden;
    // Q and O are h x h; K and V h x (h x kvHeads / heads) with grouped-query attention.
    return 2 * h * h + 2 * h * (h * c.kvHeads / c.heads);
}

uint64_t
MlpParams(const Config& c)
{
    // SwiGLU: gate, up (h x ffn) and down (ffn x h).
    return 3ULL * c.hidden * c.ffn;
}

std::string
Label(uint32_t stage, char pass, uint32_t mb, uint32_t layer, const char* what)
{
    return "s" + std::to_string(stage) + " " + pass + std::to_string(mb) + " L" +
           std::to_string(layer) + " " + what;
}
} // namespace

uint32_t
TransformerStepBuilder::PpStream(uint32_t boundary, uint32_t backward)
{
    return 3 + 2 * boundary + backward;
}

uint64_t
TransformerStepBuilder::LayerParams(const Config& c)
{
    return AttentionParams(c) + MlpParams(c);
}

uint64_t
TransformerStepBuilder::TotalParams(const Config& c)
{
    return c.layers * LayerParams(c) + 2ULL * c.vocab * c.hidden;
}

uint32_t
TransformerStepBuilder::MicroBatches(const Config& c)
{
    return c.globalBatch / (c.dp * c.microBatch);
}

uint32_t
TransformerStepBuilder::Gpus(const Config& c)
{
    return c.tp * c.pp * c.dp;
}

double
TransformerStepBuilder::ModelFlops(const Config& c)
{
    const double tokens = static_cast<double>(c.globalBatch) * c.seqLen;
    const double matrices =
        static_cast<double>(c.layers) * LayerParams(c) + static_cast<double>(c.vocab) * c.hidden;
    return 6 * matrices * tokens + 12.0 * c.layers * c.seqLen * c.hidden * tokens;
}

std::string
TransformerStepBuilder::Check(const Config& c)
{
    if (c.layers == 0 || c.hidden == 0 || c.ffn == 0 || c.heads == 0 || c.kvHeads == 0 ||
        c.vocab == 0 || c.seqLen == 0 || c.globalBatch == 0 || c.microBatch == 0 || c.tp == 0 ||
        c.pp == 0 || c.dp == 0)
    {
        return "every size and parallel degree must be at least 1";
    }
    if (c.layers % c.pp != 0)
    {
        return std::to_string(c.layers) + " layers do not divide into " + std::to_string(c.pp) +
               " pipeline stages";
    }
    if (c.heads % c.tp != 0 || (c.kvHeads % c.tp != 0 && c.tp % c.kvHeads != 0))
    {
        return std::to_string(c.heads) + " heads (" + std::to_string(c.kvHeads) +
               " KV heads) do not divide among TP " + std::to_string(c.tp);
    }
    if (c.globalBatch % (c.dp * c.microBatch) != 0)
    {
        return "a global batch of " + std::to_string(c.globalBatch) +
               " sequences does not divide into DP " + std::to_string(c.dp) + " x micro-batch " +
               std::to_string(c.microBatch);
    }
    if (!(c.peakTflops > 0) || !(c.efficiency > 0) || c.efficiency > 1)
    {
        return "the GPU's peak must be positive and its efficiency in (0, 1]";
    }
    return "";
}

StepGraph
TransformerStepBuilder::Build(const Config& c)
{
    const std::string problem = Check(c);
    NS_ABORT_MSG_IF(!problem.empty(), "transformer step: " << problem);
    const uint32_t m = MicroBatches(c);
    const uint32_t perStage = c.layers / c.pp;
    const double tokens = static_cast<double>(c.microBatch) * c.seqLen;
    const double flopsPerSecond = c.peakTflops * 1e12 * c.efficiency;
    // Forward seconds of one micro-batch through one layer's halves on one GPU.
    const double attnFwd =
        (2.0 * AttentionParams(c) * tokens + 4.0 * c.seqLen * c.hidden * tokens) / c.tp /
        flopsPerSecond;
    const double mlpFwd = 2.0 * MlpParams(c) * tokens / c.tp / flopsPerSecond;
    const double headFwd = 2.0 * c.vocab * c.hidden * tokens / c.tp / flopsPerSecond;
    // The TP collectives move the whole b x s x h activation: each rank's part is 1 / tp.
    const uint64_t activation = 2ULL * c.microBatch * c.seqLen * c.hidden;
    const uint64_t tpShard = activation / c.tp;

    StepGraph g;
    std::vector<uint32_t> stages;
    for (uint32_t s = 0; s < c.pp; ++s)
    {
        stages.push_back(g.AddRank("stage" + std::to_string(s)));
    }
    const uint32_t tp = g.AddCommunicator("tp", StepGraph::Category::TP, c.tp);
    const uint32_t dp = g.AddCommunicator("dp", StepGraph::Category::DP, c.dp);
    // Every boundary's sends first (their dependencies are filled in below), so each
    // boundary's streams carry them in micro-batch order on both stages.
    std::vector<std::vector<uint32_t>> ppFwd(c.pp);
    std::vector<std::vector<uint32_t>> ppBwd(c.pp);
    for (uint32_t b = 0; b + 1 < c.pp; ++b)
    {
        const uint32_t pp =
            g.AddCommunicator("pp" + std::to_string(b) + "-" + std::to_string(b + 1),
                              StepGraph::Category::PP,
                              2);
        for (uint32_t dir = 0; dir < 2; ++dir)
        {
            for (uint32_t i = 0; i < m; ++i)
            {
                const std::string what = dir == 0 ? " activations" : " gradients";
                (dir == 0 ? ppFwd : ppBwd)[b].push_back(
                    g.AddCollective(pp,
                                    {stages[b], stages[b + 1]},
                                    PpStream(b, dir),
                                    CollectiveOp::SEND_RECV,
                                    tpShard,
                                    {},
                                    "pp" + std::to_string(b) + " mb" + std::to_string(i) + what));
            }
        }
    }

    for (uint32_t s = 0; s < c.pp; ++s)
    {
        const uint32_t rank = stages[s];
        const bool first = s == 0;
        const bool last = s + 1 == c.pp;
        // A layer's parameters are gathered in buckets before its first forward; the input
        // embedding (first stage) and the LM head (last) are one more group each.
        auto buckets = [&](uint64_t params) {
            return std::max<uint64_t>(1, (params + c.bucketParams - 1) / c.bucketParams);
        };
        const uint64_t layerParams = LayerParams(c) / c.tp;
        const uint64_t embedParams = static_cast<uint64_t>(c.vocab) * c.hidden / c.tp;
        std::vector<std::vector<uint32_t>> gathers(perStage);
        auto gather = [&](uint64_t params, const std::string& what) {
            std::vector<uint32_t> ids;
            const uint64_t n = buckets(params);
            for (uint64_t k = 0; k < n; ++k)
            {
                const uint64_t p = std::min(c.bucketParams, params - k * c.bucketParams);
                ids.push_back(g.AddCollective(dp,
                                              {rank},
                                              DP_STREAM,
                                              CollectiveOp::ALL_GATHER,
                                              std::max<uint64_t>(1, p * c.paramBytes / c.dp),
                                              {},
                                              what + " params bucket " + std::to_string(k)));
            }
            return ids;
        };
        std::vector<uint32_t> embedGather;
        if (first || last)
        {
            embedGather =
                gather(embedParams, "s" + std::to_string(s) + (first ? " embed" : " head"));
        }
        for (uint32_t l = 0; l < perStage; ++l)
        {
            gathers[l] = gather(layerParams, Label(s, 'G', 0, l, ""));
        }

        // TP collectives sit on the compute stream's path unless overlapped.
        uint32_t prev = UINT32_MAX;
        auto compute = [&](double seconds, std::vector<uint32_t> deps, const std::string& what) {
            if (prev != UINT32_MAX)
            {
                deps.push_back(prev);
            }
            prev = g.AddCompute(rank, COMPUTE_STREAM, seconds, deps, what);
            return prev;
        };
        auto tpCollective = [&](CollectiveOp op, const std::string& what) {
            const uint32_t id = g.AddCollective(tp, {rank}, TP_STREAM, op, tpShard, {prev}, what);
            if (!c.tpOverlap)
            {
                prev = id; // the next compute waits for it
            }
            return id;
        };
        auto forward = [&](uint32_t i) {
            std::vector<uint32_t> in;
            if (!first)
            {
                in.push_back(ppFwd[s - 1][i]);
            }
            if (i == 0)
            {
                in.insert(in.end(), embedGather.begin(), embedGather.end());
            }
            bool entered = false;
            for (uint32_t l = 0; l < perStage; ++l)
            {
                std::vector<uint32_t> deps = i == 0 ? gathers[l] : std::vector<uint32_t>{};
                if (!entered)
                {
                    deps.insert(deps.end(), in.begin(), in.end());
                    entered = true;
                }
                if (prev != UINT32_MAX)
                {
                    deps.push_back(prev);
                }
                prev = g.AddCollective(tp,
                                       {rank},
                                       TP_STREAM,
                                       CollectiveOp::ALL_GATHER,
                                       tpShard,
                                       deps,
                                       Label(s, 'F', i, l, "attn all-gather"));
                compute(attnFwd, {}, Label(s, 'F', i, l, "attention"));
                tpCollective(CollectiveOp::REDUCE_SCATTER,
                             Label(s, 'F', i, l, "attn reduce-scatter"));
                tpCollective(CollectiveOp::ALL_GATHER, Label(s, 'F', i, l, "mlp all-gather"));
                compute(mlpFwd, {}, Label(s, 'F', i, l, "mlp"));
                tpCollective(CollectiveOp::REDUCE_SCATTER,
                             Label(s, 'F', i, l, "mlp reduce-scatter"));
            }
            if (last)
            {
                compute(headFwd, {}, Label(s, 'F', i, perStage, "lm head"));
            }
            else
            {
                g.AddDependency(ppFwd[s][i], prev);
            }
        };
        auto backward = [&](uint32_t i) {
            std::vector<uint32_t> in;
            if (!last)
            {
                in.push_back(ppBwd[s][i]);
            }
            else
            {
                compute(2 * headFwd, {}, Label(s, 'B', i, perStage, "lm head"));
            }
            const bool lastMb = i + 1 == m;
            for (uint32_t l = perStage; l-- > 0;)
            {
                std::vector<uint32_t> deps = in;
                in.clear();
                if (prev != UINT32_MAX)
                {
                    deps.push_back(prev);
                }
                prev = g.AddCollective(tp,
                                       {rank},
                                       TP_STREAM,
                                       CollectiveOp::ALL_GATHER,
                                       tpShard,
                                       deps,
                                       Label(s, 'B', i, l, "mlp all-gather"));
                compute(2 * mlpFwd, {}, Label(s, 'B', i, l, "mlp"));
                tpCollective(CollectiveOp::REDUCE_SCATTER,
                             Label(s, 'B', i, l, "mlp reduce-scatter"));
                tpCollective(CollectiveOp::ALL_GATHER, Label(s, 'B', i, l, "attn all-gather"));
                const uint32_t done = compute(2 * attnFwd, {}, Label(s, 'B', i, l, "attention"));
                tpCollective(CollectiveOp::REDUCE_SCATTER,
                             Label(s, 'B', i, l, "attn reduce-scatter"));
                if (lastMb)
                {
                    // The layer's gradients are complete: reduce-scatter its buckets.
                    const uint64_t n = buckets(layerParams);
                    for (uint64_t k = 0; k < n; ++k)
                    {
                        const uint64_t p =
                            std::min(c.bucketParams, layerParams - k * c.bucketParams);
                        g.AddCollective(dp,
                                        {rank},
                                        DP_STREAM,
                                        CollectiveOp::REDUCE_SCATTER,
                                        std::max<uint64_t>(1, p * c.gradBytes / c.dp),
                                        {done},
                                        Label(s, 'R', i, l, "grads bucket") + " " +
                                            std::to_string(k));
                    }
                }
            }
            if (lastMb && (first || last))
            {
                const uint64_t n = buckets(embedParams);
                for (uint64_t k = 0; k < n; ++k)
                {
                    const uint64_t p = std::min(c.bucketParams, embedParams - k * c.bucketParams);
                    g.AddCollective(dp,
                                    {rank},
                                    DP_STREAM,
                                    CollectiveOp::REDUCE_SCATTER,
                                    std::max<uint64_t>(1, p * c.gradBytes / c.dp),
                                    {prev},
                                    "s" + std::to_string(s) + (first ? " embed" : " head") +
                                        " grads bucket " + std::to_string(k));
                }
            }
            if (!first)
            {
                g.AddDependency(ppBwd[s - 1][i], prev);
            }
        };
        // 1F1B: warm-up forwards, then one forward and one backward at a time, then the
        // remaining backwards (Narayanan et al., SC'21, section 2.2).
        const uint32_t warmup = std::min(c.pp - 1 - s, m);
        for (uint32_t i = 0; i < warmup; ++i)
        {
            forward(i);
        }
        for (uint32_t i = 0; i + warmup < m; ++i)
        {
            forward(i + warmup);
            backward(i);
        }
        for (uint32_t i = m - warmup; i < m; ++i)
        {
            backward(i);
        }
    }
    return g;
}

} // namespace ns3
