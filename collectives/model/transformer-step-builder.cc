/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-step-builder.h"

#include "ns3/abort.h"

#include <algorithm>
#include <utility>
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
    return static_cast<uint32_t>(c.globalBatch / (static_cast<uint64_t>(c.dp) * c.microBatch));
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
    const std::pair<const char*, uint32_t> counts[] = {{"layers", c.layers},
                                                       {"hidden", c.hidden},
                                                       {"ffn", c.ffn},
                                                       {"heads", c.heads},
                                                       {"kvHeads", c.kvHeads},
                                                       {"vocab", c.vocab},
                                                       {"seqLen", c.seqLen},
                                                       {"globalBatch", c.globalBatch},
                                                       {"microBatch", c.microBatch},
                                                       {"tp", c.tp},
                                                       {"pp", c.pp},
                                                       {"dp", c.dp}};
    for (const auto& [name, value] : counts)
    {
        if (value == 0)
        {
            return std::string(name) + " is 0 (every size and parallel degree must be at least 1)";
        }
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
    // In 64 bits: DP 32 x micro-batch 2^27 is 0 in 32 bits, and the remainder a SIGFPE.
    if (c.globalBatch % (static_cast<uint64_t>(c.dp) * c.microBatch) != 0)
    {
        return "a global batch of " + std::to_string(c.globalBatch) +
               " sequences does not divide into DP " + std::to_string(c.dp) + " x micro-batch " +
               std::to_string(c.microBatch);
    }
    if (c.zeroStage > 3)
    {
        return "ZeRO stage " + std::to_string(c.zeroStage) + " does not exist (0 to 3)";
    }
    if (!(c.peakTflops > 0) || !(c.efficiency > 0) || c.efficiency > 1)
    {
        return "the GPU's peak must be positive and its efficiency in (0, 1]";
    }
    return "";
}

namespace
{

/// Writes one pipeline stage's operations into the step.
class StageWriter
{
  public:
    StageWriter(const Config& c,
                StepGraph& g,
                uint32_t stage,
                uint32_t rank,
                uint32_t tp,
                uint32_t dp,
                const std::vector<std::vector<uint32_t>>& ppFwd,
                const std::vector<std::vector<uint32_t>>& ppBwd)
        : m_c(c),
          m_g(g),
          m_s(stage),
          m_rank(rank),
          m_tp(tp),
          m_dp(dp),
          m_ppFwd(ppFwd),
          m_ppBwd(ppBwd),
          m_first(stage == 0),
          m_last(stage + 1 == c.pp),
          m_perStage(c.layers / c.pp),
          m_m(TransformerStepBuilder::MicroBatches(c)),
          m_layerParams(TransformerStepBuilder::LayerParams(c) / c.tp),
          m_embedParams(static_cast<uint64_t>(c.vocab) * c.hidden / c.tp)
    {
        const double tokens = static_cast<double>(c.microBatch) * c.seqLen;
        const double flopsPerSecond = c.peakTflops * 1e12 * c.efficiency;
        // Forward seconds of one micro-batch through one layer's halves on one GPU.
        m_attnFwd = (2.0 * AttentionParams(c) * tokens + 4.0 * c.seqLen * c.hidden * tokens) /
                    c.tp / flopsPerSecond;
        m_mlpFwd = 2.0 * MlpParams(c) * tokens / c.tp / flopsPerSecond;
        m_headFwd = 2.0 * c.vocab * c.hidden * tokens / c.tp / flopsPerSecond;
        // The TP collectives move the whole b x s x h activation: each rank's part is 1 / tp.
        m_tpShard = 2ULL * c.microBatch * c.seqLen * c.hidden / c.tp;
    }

    void Write()
    {
        // ZeRO-1 and -2 gather the updated parameters once, overlapped with the step's
        // start (Megatron's --overlap-param-gather); each layer's first forward waits for its
        // own. ZeRO-3 gathers them again before every use.
        if (m_c.zeroStage == 1 || m_c.zeroStage == 2)
        {
            if (m_first || m_last)
            {
                m_embedGather = Gather(m_embedParams, Owner() + " params", {});
            }
            for (uint32_t l = 0; l < m_perStage; ++l)
            {
                m_gathers.push_back(Gather(m_layerParams, Label(m_s, 'G', 0, l, "params"), {}));
            }
        }
        // 1F1B: warm-up forwards, then one forward and one backward at a time, then the
        // remaining backwards (Narayanan et al., SC'21, section 2.2).
        const uint32_t warmup = std::min(m_c.pp - 1 - m_s, m_m);
        for (uint32_t i = 0; i < warmup; ++i)
        {
            Forward(i);
        }
        for (uint32_t i = 0; i + warmup < m_m; ++i)
        {
            Forward(i + warmup);
            Backward(i);
        }
        for (uint32_t i = m_m - warmup; i < m_m; ++i)
        {
            Backward(i);
        }
    }

  private:
    std::string Owner() const
    {
        return "s" + std::to_string(m_s) + (m_first ? " embed" : " head");
    }

    uint64_t Buckets(uint64_t params) const
    {
        return std::max<uint64_t>(1, (params + m_c.bucketParams - 1) / m_c.bucketParams);
    }

    /// One DP collective per bucket of `params` (this GPU's), each of `bytesPerParam`
    /// divided as the collective's S.
    std::vector<uint32_t> Buckets(CollectiveOp op,
                                  uint64_t params,
                                  uint32_t bytesPerParam,
                                  const std::vector<uint32_t>& deps,
                                  const std::string& what)
    {
        std::vector<uint32_t> ids;
        const uint64_t n = Buckets(params);
        for (uint64_t k = 0; k < n; ++k)
        {
            const uint64_t p = std::min(m_c.bucketParams, params - k * m_c.bucketParams);
            // All-reduce: S is the whole bucket; reduce-scatter and all-gather: its 1/dp.
            const uint64_t bytes =
                op == CollectiveOp::ALL_REDUCE ? p * bytesPerParam : p * bytesPerParam / m_c.dp;
            ids.push_back(m_g.AddCollective(m_dp,
                                            {m_rank},
                                            TransformerStepBuilder::DP_STREAM,
                                            op,
                                            std::max<uint64_t>(1, bytes),
                                            deps,
                                            what + " bucket " + std::to_string(k)));
        }
        return ids;
    }

    std::vector<uint32_t> Gather(uint64_t params,
                                 const std::string& what,
                                 const std::vector<uint32_t>& deps)
    {
        return Buckets(CollectiveOp::ALL_GATHER, params, m_c.paramBytes, deps, what);
    }

    /// After micro-batch i's backward produced these gradients: ZeRO-0 all-reduces and
    /// ZeRO-1 reduce-scatters them after the last micro-batch (gradients accumulate whole);
    /// ZeRO-2 and -3 keep only their shard, so they reduce-scatter every micro-batch's.
    void ReduceGrads(uint32_t i, uint64_t params, uint32_t done, const std::string& what)
    {
        if (m_c.zeroStage < 2 && i + 1 != m_m)
        {
            return;
        }
        Buckets(m_c.zeroStage == 0 ? CollectiveOp::ALL_REDUCE : CollectiveOp::REDUCE_SCATTER,
                params,
                m_c.gradBytes,
                {done},
                what);
    }

    /// ZeRO-3: gather a layer's parameters once the compute before the layer `ahead` of it
    /// starts (one layer of prefetch, as FSDP's and DeepSpeed's); others: the step-start
    /// gather for micro-batch 0's forward, nothing else.
    std::vector<uint32_t> ParamsFor(uint32_t i, uint32_t l, char pass)
    {
        if (m_c.zeroStage == 3)
        {
            return Gather(m_layerParams, Label(m_s, pass, i, l, "params"), Prev());
        }
        return i == 0 && pass == 'F' && !m_gathers.empty() ? m_gathers[l] : std::vector<uint32_t>{};
    }

    std::vector<uint32_t> Prev() const
    {
        return m_prev == UINT32_MAX ? std::vector<uint32_t>{} : std::vector<uint32_t>{m_prev};
    }

    uint32_t Compute(double seconds, const std::string& what, std::vector<uint32_t> deps = {})
    {
        const auto prev = Prev();
        deps.insert(deps.end(), prev.begin(), prev.end());
        m_prev =
            m_g.AddCompute(m_rank, TransformerStepBuilder::COMPUTE_STREAM, seconds, deps, what);
        return m_prev;
    }

    /// TP collectives sit on the compute stream's path unless overlapped.
    void Tp(CollectiveOp op, const std::string& what)
    {
        const uint32_t id = m_g.AddCollective(m_tp,
                                              {m_rank},
                                              TransformerStepBuilder::TP_STREAM,
                                              op,
                                              m_tpShard,
                                              Prev(),
                                              what);
        if (!m_c.tpOverlap)
        {
            m_prev = id; // the next compute waits for it
        }
    }

    /// The all-gather that opens a layer's half: it waits for what came before and `deps`.
    void Enter(std::vector<uint32_t> deps, const std::string& what)
    {
        const auto prev = Prev();
        deps.insert(deps.end(), prev.begin(), prev.end());
        m_prev = m_g.AddCollective(m_tp,
                                   {m_rank},
                                   TransformerStepBuilder::TP_STREAM,
                                   CollectiveOp::ALL_GATHER,
                                   m_tpShard,
                                   deps,
                                   what);
    }

    void Forward(uint32_t i)
    {
        std::vector<uint32_t> in;
        if (!m_first)
        {
            in.push_back(m_ppFwd[m_s - 1][i]);
        }
        if (m_first || m_last)
        {
            const std::vector<uint32_t> embed =
                m_c.zeroStage == 3 ? Gather(m_embedParams, Owner() + " params", Prev())
                : i == 0           ? m_embedGather
                                   : std::vector<uint32_t>{};
            in.insert(in.end(), embed.begin(), embed.end());
        }
        std::vector<uint32_t> params = ParamsFor(i, 0, 'F');
        for (uint32_t l = 0; l < m_perStage; ++l)
        {
            std::vector<uint32_t> deps = params;
            deps.insert(deps.end(), in.begin(), in.end());
            in.clear();
            Enter(deps, Label(m_s, 'F', i, l, "attn all-gather"));
            if (l + 1 < m_perStage)
            {
                params = ParamsFor(i, l + 1, 'F'); // ZeRO-3 prefetches the next layer
            }
            Compute(m_attnFwd, Label(m_s, 'F', i, l, "attention"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'F', i, l, "attn reduce-scatter"));
            Tp(CollectiveOp::ALL_GATHER, Label(m_s, 'F', i, l, "mlp all-gather"));
            Compute(m_mlpFwd, Label(m_s, 'F', i, l, "mlp"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'F', i, l, "mlp reduce-scatter"));
        }
        if (m_last)
        {
            Compute(m_headFwd, Label(m_s, 'F', i, m_perStage, "lm head"));
        }
        else
        {
            m_g.AddDependency(m_ppFwd[m_s][i], m_prev);
        }
    }

    void Backward(uint32_t i)
    {
        std::vector<uint32_t> in;
        if (!m_last)
        {
            in.push_back(m_ppBwd[m_s][i]);
        }
        else
        {
            const std::vector<uint32_t> head =
                m_c.zeroStage == 3 ? Gather(m_embedParams, Owner() + " params", Prev())
                                   : std::vector<uint32_t>{};
            Compute(2 * m_headFwd, Label(m_s, 'B', i, m_perStage, "lm head"), head);
        }
        std::vector<uint32_t> params = ParamsFor(i, m_perStage - 1, 'B');
        for (uint32_t l = m_perStage; l-- > 0;)
        {
            std::vector<uint32_t> deps = params;
            deps.insert(deps.end(), in.begin(), in.end());
            in.clear();
            Enter(deps, Label(m_s, 'B', i, l, "mlp all-gather"));
            if (l > 0)
            {
                params = ParamsFor(i, l - 1, 'B');
            }
            Compute(2 * m_mlpFwd, Label(m_s, 'B', i, l, "mlp"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "mlp reduce-scatter"));
            Tp(CollectiveOp::ALL_GATHER, Label(m_s, 'B', i, l, "attn all-gather"));
            const uint32_t done = Compute(2 * m_attnFwd, Label(m_s, 'B', i, l, "attention"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "attn reduce-scatter"));
            // The layer's gradients of this micro-batch are complete.
            ReduceGrads(i, m_layerParams, done, Label(m_s, 'R', i, l, "grads"));
        }
        if (m_first || m_last)
        {
            ReduceGrads(i, m_embedParams, m_prev, Owner() + " grads");
        }
        if (!m_first)
        {
            m_g.AddDependency(m_ppBwd[m_s - 1][i], m_prev);
        }
    }

    const Config& m_c;
    StepGraph& m_g;
    const uint32_t m_s;
    const uint32_t m_rank;
    const uint32_t m_tp;
    const uint32_t m_dp;
    const std::vector<std::vector<uint32_t>>& m_ppFwd;
    const std::vector<std::vector<uint32_t>>& m_ppBwd;
    const bool m_first;
    const bool m_last;
    const uint32_t m_perStage;
    const uint32_t m_m;
    const uint64_t m_layerParams; //!< per GPU
    const uint64_t m_embedParams; //!< per GPU: the input embedding or the LM head
    double m_attnFwd;
    double m_mlpFwd;
    double m_headFwd;
    uint64_t m_tpShard;
    uint32_t m_prev{UINT32_MAX}; //!< the last operation the compute stream's next one waits for
    std::vector<std::vector<uint32_t>> m_gathers; //!< ZeRO-1/2: each layer's step-start gather
    std::vector<uint32_t> m_embedGather;
};

} // namespace

StepGraph
TransformerStepBuilder::Build(const Config& c)
{
    const std::string problem = Check(c);
    NS_ABORT_MSG_IF(!problem.empty(), "transformer step: " << problem);
    const uint32_t m = MicroBatches(c);
    const uint64_t tpShard = 2ULL * c.microBatch * c.seqLen * c.hidden / c.tp;

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
        StageWriter(c, g, s, stages[s], tp, dp, ppFwd, ppBwd).Write();
    }
    return g;
}

} // namespace ns3
