/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-step-builder.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{
using Config = TransformerStepBuilder::Config;

uint64_t
MlpParams(const Config& c)
{
    // SwiGLU: gate, up (h x ffn) and down (ffn x h).
    return 3ULL * c.hidden * c.ffn;
}

/// Attention's FLOPs per token and layer forward beyond its projections: Q K^T and the
/// weighted sum of V over the sequence, 2 s x (heads x (qk + v head dimensions)); 4 s h with
/// heads of h / heads dimensions.
double
AttentionCoreFlops(const Config& c)
{
    if (c.kvLoraRank == 0)
    {
        return 4.0 * c.seqLen * c.hidden;
    }
    return 2.0 * c.seqLen * c.heads * (c.qkNopeHeadDim + c.qkRopeHeadDim + c.vHeadDim);
}

/// Parameters of the router: a hidden x experts linear layer (its bias neglected).
uint64_t
RouterParams(const Config& c)
{
    return static_cast<uint64_t>(c.hidden) * c.experts;
}

/// Layers before `stage`.
uint32_t
FirstLayer(const Config& c, uint32_t stage)
{
    return stage * TransformerStepBuilder::StageLayers(c, 0);
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
TransformerStepBuilder::AttentionParams(const Config& c)
{
    const uint64_t h = c.hidden;
    if (c.kvLoraRank == 0)
    {
        // Q and O are h x h; K and V h x (h x kvHeads / heads) with grouped-query attention.
        return 2 * h * h + 2 * h * (h * c.kvHeads / c.heads);
    }
    // MLA (DeepSeek-V2, arXiv:2405.04434, section 2.1; DeepSeek-V3's inference/model.py):
    // queries h -> qLoraRank -> heads x (nope + rope), or h -> heads x (nope + rope) without
    // compression; keys and values h -> kvLoraRank + rope (the decoupled RoPE key), then
    // kvLoraRank -> heads x (nope + v); the output heads x v -> h.
    const uint64_t heads = c.heads;
    const uint64_t qk = c.qkNopeHeadDim + c.qkRopeHeadDim;
    const uint64_t q =
        c.qLoraRank == 0 ? h * heads * qk : h * c.qLoraRank + c.qLoraRank * heads * qk;
    const uint64_t kv = h * (c.kvLoraRank + c.qkRopeHeadDim) + static_cast<uint64_t>(c.kvLoraRank) *
                                                                   heads *
                                                                   (c.qkNopeHeadDim + c.vHeadDim);
    return q + kv + heads * c.vHeadDim * h;
}

uint64_t
TransformerStepBuilder::LayerParams(const Config& c)
{
    return AttentionParams(c) + MlpParams(c);
}

uint64_t
TransformerStepBuilder::ExpertParams(const Config& c)
{
    return 3ULL * c.hidden * c.expertFfn;
}

uint64_t
TransformerStepBuilder::MoeLayerParams(const Config& c)
{
    return AttentionParams(c) + RouterParams(c) +
           static_cast<uint64_t>(c.experts + c.sharedExperts) * ExpertParams(c);
}

uint64_t
TransformerStepBuilder::MoeLayerActiveParams(const Config& c)
{
    return AttentionParams(c) + RouterParams(c) +
           static_cast<uint64_t>(c.topK + c.sharedExperts) * ExpertParams(c);
}

bool
TransformerStepBuilder::IsMoeLayer(const Config& c, uint32_t layer)
{
    return c.experts > 0 && layer >= c.firstDenseLayers;
}

namespace
{
/// The layers' parameters: dense layers whole, MoE layers whole or (active) as a token sees
/// them.
uint64_t
AllLayerParams(const Config& c, bool active)
{
    if (c.experts == 0)
    {
        return c.layers * TransformerStepBuilder::LayerParams(c);
    }
    const uint64_t dense = std::min(c.firstDenseLayers, c.layers);
    return dense * TransformerStepBuilder::LayerParams(c) +
           (c.layers - dense) * (active ? TransformerStepBuilder::MoeLayerActiveParams(c)
                                        : TransformerStepBuilder::MoeLayerParams(c));
}
} // namespace

uint64_t
TransformerStepBuilder::TotalParams(const Config& c)
{
    return AllLayerParams(c, false) + 2ULL * c.vocab * c.hidden;
}

uint64_t
TransformerStepBuilder::ActiveParams(const Config& c)
{
    return AllLayerParams(c, true) + 2ULL * c.vocab * c.hidden;
}

uint32_t
TransformerStepBuilder::StageLayers(const Config& c, uint32_t stage)
{
    if (c.lastStageLayers == 0 || c.pp < 2)
    {
        return c.layers / c.pp;
    }
    return stage + 1 == c.pp ? c.lastStageLayers : (c.layers - c.lastStageLayers) / (c.pp - 1);
}

uint64_t
TransformerStepBuilder::RoutedTokens(const Config& c)
{
    // Megatron-LM's get_capacity(num_tokens = t x topK, num_experts, capacity_factor): each
    // expert's capacity from this GPU, times the experts.
    const uint64_t t = static_cast<uint64_t>(c.microBatch) * c.seqLen / c.tp;
    const double capacity =
        std::ceil(static_cast<double>(t * c.topK) / c.experts * c.capacityFactor);
    return static_cast<uint64_t>(capacity) * c.experts;
}

uint64_t
TransformerStepBuilder::EpAllToAllBytes(const Config& c)
{
    return RoutedTokens(c) / c.ep * c.hidden * c.epBytes;
}

uint32_t
TransformerStepBuilder::ExpertDp(const Config& c)
{
    return c.dp / c.ep;
}

uint32_t
TransformerStepBuilder::EpGpusPerNode(const Config& c)
{
    return std::min(c.ep, std::max(1U, c.gpusPerNode / c.tp));
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
    // Exact in a double (below 2^53), as the dense model's sum always was.
    const double matrices =
        static_cast<double>(AllLayerParams(c, true)) + static_cast<double>(c.vocab) * c.hidden;
    // Forward, and backward at twice the forward: 3 x the forward's 4 s h = 12 L s h.
    return 6 * matrices * tokens + 3.0 * c.layers * AttentionCoreFlops(c) * tokens;
}

namespace
{
/// "NAME is 0 (rule)" for the first count of 0, else "".
std::string
FirstZero(std::initializer_list<std::pair<const char*, uint32_t>> counts, const std::string& rule)
{
    for (const auto& [name, value] : counts)
    {
        if (value == 0)
        {
            return std::string(name) + " is 0 (" + rule + ")";
        }
    }
    return "";
}

/// A factor as people write it: 1.25, not 1.250000.
std::string
FormatFactor(double x)
{
    std::ostringstream out;
    out << x;
    return out.str();
}

std::string
CheckDense(const Config& c)
{
    if (c.ep != 1)
    {
        return "EP " + std::to_string(c.ep) +
               " needs routed experts: a dense model has none to spread";
    }
    return "";
}

std::string
CheckMoe(const Config& c)
{
    const std::string zero = FirstZero({{"topK", c.topK},
                                        {"expertFfn", c.expertFfn},
                                        {"ep", c.ep},
                                        {"epBytes", c.epBytes},
                                        {"gpusPerNode", c.gpusPerNode}},
                                       "an MoE model's sizes and degrees are at least 1");
    if (!zero.empty())
    {
        return zero;
    }
    const std::string experts = std::to_string(c.experts) + " experts";
    if (c.topK > c.experts)
    {
        return "top-" + std::to_string(c.topK) + " routing needs more than " + experts;
    }
    if (c.firstDenseLayers >= c.layers)
    {
        return "the first " + std::to_string(c.firstDenseLayers) + " of " +
               std::to_string(c.layers) + " layers dense leave no MoE layer";
    }
    if (c.experts % c.ep != 0)
    {
        return experts + " do not divide among EP " + std::to_string(c.ep);
    }
    if (c.dp % c.ep != 0)
    {
        return "EP " + std::to_string(c.ep) + " does not divide DP " + std::to_string(c.dp) +
               " (expert-parallel GPUs are data-parallel ones)";
    }
    // An EP group is ep x tp consecutive GPUs: whole nodes, or a part of one that divides it.
    const uint64_t span = static_cast<uint64_t>(c.ep) * c.tp;
    if (c.ep > 1 && span % c.gpusPerNode != 0 && c.gpusPerNode % span != 0)
    {
        return "an EP group (EP " + std::to_string(c.ep) + " x TP " + std::to_string(c.tp) +
               " consecutive GPUs) does not fit nodes of " + std::to_string(c.gpusPerNode) +
               " GPUs";
    }
    // Above experts / topK an expert's capacity passes every token of the GPU.
    if (!(c.capacityFactor > 0) || c.capacityFactor * c.topK > c.experts)
    {
        return "a capacity factor of " + FormatFactor(c.capacityFactor) +
               " is not in (0, experts / top-k = " +
               FormatFactor(static_cast<double>(c.experts) / c.topK) + "]";
    }
    return "";
}
} // namespace

std::string
TransformerStepBuilder::Check(const Config& c)
{
    const std::string zero = FirstZero({{"layers", c.layers},
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
                                        {"dp", c.dp}},
                                       "every size and parallel degree must be at least 1");
    if (!zero.empty())
    {
        return zero;
    }
    if (c.lastStageLayers == 0 && c.layers % c.pp != 0)
    {
        return std::to_string(c.layers) + " layers do not divide into " + std::to_string(c.pp) +
               " pipeline stages";
    }
    if (c.lastStageLayers > 0 && (c.pp < 2 || c.lastStageLayers >= c.layers ||
                                  (c.layers - c.lastStageLayers) % (c.pp - 1) != 0 ||
                                  c.layers - c.lastStageLayers < c.pp - 1))
    {
        return "the " + std::to_string(c.layers) + " layers less the last stage's " +
               std::to_string(c.lastStageLayers) + " do not divide into the other " +
               std::to_string(c.pp > 0 ? c.pp - 1 : 0) + " pipeline stages";
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
    if (c.kvLoraRank > 0 && (c.qkNopeHeadDim + c.qkRopeHeadDim == 0 || c.vHeadDim == 0))
    {
        return "multi-head latent attention needs query/key and value head dimensions";
    }
    return c.experts == 0 ? CheckDense(c) : CheckMoe(c);
}

namespace
{

/// No communicator (StageWriter::Comms).
constexpr uint32_t NONE = UINT32_MAX;

/// Writes one pipeline stage's operations into the step.
class StageWriter
{
  public:
    /// The communicators of a stage's collectives.
    struct Comms
    {
        uint32_t tp;
        uint32_t dp;
        uint32_t ep{NONE};  //!< NONE: no all-to-all (EP 1)
        uint32_t edp{NONE}; //!< the experts' gradients (dp with EP 1); NONE: dp / ep is 1
    };

    StageWriter(const Config& c,
                StepGraph& g,
                uint32_t stage,
                uint32_t rank,
                const Comms& comms,
                const std::vector<std::vector<uint32_t>>& ppFwd,
                const std::vector<std::vector<uint32_t>>& ppBwd)
        : m_c(c),
          m_g(g),
          m_s(stage),
          m_rank(rank),
          m_comms(comms),
          m_ppFwd(ppFwd),
          m_ppBwd(ppBwd),
          m_first(stage == 0),
          m_last(stage + 1 == c.pp),
          m_perStage(TransformerStepBuilder::StageLayers(c, stage)),
          m_firstLayer(FirstLayer(c, stage)),
          m_m(TransformerStepBuilder::MicroBatches(c)),
          m_layerParams(TransformerStepBuilder::LayerParams(c) / c.tp),
          m_embedParams(static_cast<uint64_t>(c.vocab) * c.hidden / c.tp)
    {
        const double tokens = static_cast<double>(c.microBatch) * c.seqLen;
        const double flopsPerSecond = c.peakTflops * 1e12 * c.efficiency;
        // Forward seconds of one micro-batch through one layer's halves on one GPU.
        m_attnFwd = (2.0 * TransformerStepBuilder::AttentionParams(c) * tokens +
                     AttentionCoreFlops(c) * tokens) /
                    c.tp / flopsPerSecond;
        m_mlpFwd = 2.0 * MlpParams(c) * tokens / c.tp / flopsPerSecond;
        m_headFwd = 2.0 * c.vocab * c.hidden * tokens / c.tp / flopsPerSecond;
        // The TP collectives move the whole b x s x h activation: each rank's part is 1 / tp.
        m_tpShard = 2ULL * c.microBatch * c.seqLen * c.hidden / c.tp;
        if (c.experts > 0)
        {
            const uint64_t expert = TransformerStepBuilder::ExpertParams(c);
            // Per GPU: the dense part (attention, router, shared experts) split over TP like a
            // dense layer; experts / ep experts, each split over TP too.
            m_moeParams = (TransformerStepBuilder::AttentionParams(c) + RouterParams(c) +
                           c.sharedExperts * expert) /
                          c.tp;
            m_expertParams = c.experts / c.ep * expert / c.tp;
            // The router runs on the GPU's sequence-parallel tokens, the shared experts on all
            // of them split over TP.
            m_routerFwd = 2.0 * RouterParams(c) * tokens / c.tp / flopsPerSecond;
            m_sharedFwd = 2.0 * c.sharedExperts * expert * tokens / c.tp / flopsPerSecond;
            // A GPU's experts take as many tokens as it dispatched (padded to capacity: padding
            // is computed too), tp times that after the TP all-gather, at 1/tp of each
            // expert's weights.
            const uint64_t routed = TransformerStepBuilder::RoutedTokens(c);
            m_expertsFwd = 2.0 * expert * routed / flopsPerSecond;
            m_routedShard = routed * c.hidden * c.epBytes;
            m_a2a = TransformerStepBuilder::EpAllToAllBytes(c);
        }
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
                m_gathers.push_back(GatherLayer(l, 'G', 0, {}));
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

    /// A data-parallel group: its communicator and GPUs.
    struct Group
    {
        uint32_t comm;
        uint32_t ranks;
    };

    Group Dp() const
    {
        return {m_comms.dp, m_c.dp};
    }

    /// The experts' gradients and parameters: over the GPUs holding the same experts.
    Group Edp() const
    {
        return {m_comms.edp, TransformerStepBuilder::ExpertDp(m_c)};
    }

    bool IsMoe(uint32_t l) const
    {
        return TransformerStepBuilder::IsMoeLayer(m_c, m_firstLayer + l);
    }

    /// One collective of the group per bucket of `params` (this GPU's), each of
    /// `bytesPerParam` divided as the collective's S.
    std::vector<uint32_t> Buckets(const Group& group,
                                  CollectiveOp op,
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
            const uint64_t bytes = op == CollectiveOp::ALL_REDUCE ? p * bytesPerParam
                                                                  : p * bytesPerParam / group.ranks;
            ids.push_back(m_g.AddCollective(group.comm,
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
                                 const std::vector<uint32_t>& deps,
                                 const Group& group)
    {
        return Buckets(group, CollectiveOp::ALL_GATHER, params, m_c.paramBytes, deps, what);
    }

    std::vector<uint32_t> Gather(uint64_t params,
                                 const std::string& what,
                                 const std::vector<uint32_t>& deps)
    {
        return Gather(params, what, deps, Dp());
    }

    /// Layer l's parameters: a dense layer's over DP; an MoE layer's dense part over DP and its
    /// experts over the expert-data-parallel group (nothing to gather when it is one GPU).
    std::vector<uint32_t> GatherLayer(uint32_t l,
                                      char pass,
                                      uint32_t i,
                                      const std::vector<uint32_t>& deps)
    {
        if (!IsMoe(l))
        {
            return Gather(m_layerParams, Label(m_s, pass, i, l, "params"), deps);
        }
        std::vector<uint32_t> ids = Gather(m_moeParams, Label(m_s, pass, i, l, "params"), deps);
        if (m_comms.edp != NONE)
        {
            const auto experts =
                Gather(m_expertParams, Label(m_s, pass, i, l, "expert params"), deps, Edp());
            ids.insert(ids.end(), experts.begin(), experts.end());
        }
        return ids;
    }

    /// After micro-batch i's backward produced these gradients: ZeRO-0 all-reduces and
    /// ZeRO-1 reduce-scatters them after the last micro-batch (gradients accumulate whole);
    /// ZeRO-2 and -3 keep only their shard, so they reduce-scatter every micro-batch's.
    void ReduceGrads(uint32_t i,
                     uint64_t params,
                     uint32_t done,
                     const std::string& what,
                     const Group& group)
    {
        if (m_c.zeroStage < 2 && i + 1 != m_m)
        {
            return;
        }
        Buckets(group,
                m_c.zeroStage == 0 ? CollectiveOp::ALL_REDUCE : CollectiveOp::REDUCE_SCATTER,
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
            return GatherLayer(l, pass, i, Prev());
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
    void Tp(CollectiveOp op, const std::string& what, uint64_t bytes)
    {
        const uint32_t id = m_g.AddCollective(m_comms.tp,
                                              {m_rank},
                                              TransformerStepBuilder::TP_STREAM,
                                              op,
                                              bytes,
                                              Prev(),
                                              what);
        if (!m_c.tpOverlap)
        {
            m_prev = id; // the next compute waits for it
        }
    }

    void Tp(CollectiveOp op, const std::string& what)
    {
        Tp(op, what, m_tpShard);
    }

    /// A collective that opens a layer's half (TP's all-gather, or an MoE layer's backward
    /// all-to-all): it waits for what came before and `deps`, and the compute for it.
    void Enter(std::vector<uint32_t> deps,
               const std::string& what,
               uint32_t comm,
               uint32_t stream,
               CollectiveOp op,
               uint64_t bytes)
    {
        const auto prev = Prev();
        deps.insert(deps.end(), prev.begin(), prev.end());
        m_prev = m_g.AddCollective(comm, {m_rank}, stream, op, bytes, deps, what);
    }

    void Enter(std::vector<uint32_t> deps, const std::string& what)
    {
        Enter(deps,
              what,
              m_comms.tp,
              TransformerStepBuilder::TP_STREAM,
              CollectiveOp::ALL_GATHER,
              m_tpShard);
    }

    /// The dispatch or combine all-to-all (with EP > 1), on the compute stream's path: the
    /// experts need their tokens, the next layer its output.
    void Ep(const std::string& what, const std::vector<uint32_t>& deps = {})
    {
        if (m_comms.ep != NONE)
        {
            Enter(deps,
                  what,
                  m_comms.ep,
                  TransformerStepBuilder::EP_STREAM,
                  CollectiveOp::ALL_TO_ALL,
                  m_a2a);
        }
    }

    /// With TP > 1 the experts' GPUs all-gather the tokens they received over TP and
    /// reduce-scatter their outputs (Megatron's expert TP = TP); with TP 1 there is nothing to
    /// gather.
    void Routed(CollectiveOp op, const std::string& what)
    {
        if (m_c.tp > 1)
        {
            Tp(op, what, m_routedShard);
        }
    }

    /// An MoE layer's part after the attention, forward: shared experts, router, dispatch,
    /// experts, combine.
    void MoeForward(uint32_t i, uint32_t l)
    {
        if (m_c.sharedExperts > 0)
        {
            Tp(CollectiveOp::ALL_GATHER, Label(m_s, 'F', i, l, "shared all-gather"));
            Compute(m_sharedFwd, Label(m_s, 'F', i, l, "shared experts"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'F', i, l, "shared reduce-scatter"));
        }
        Compute(m_routerFwd, Label(m_s, 'F', i, l, "router"));
        Ep(Label(m_s, 'F', i, l, "dispatch all-to-all"));
        Routed(CollectiveOp::ALL_GATHER, Label(m_s, 'F', i, l, "experts all-gather"));
        Compute(m_expertsFwd, Label(m_s, 'F', i, l, "experts"));
        Routed(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'F', i, l, "experts reduce-scatter"));
        Ep(Label(m_s, 'F', i, l, "combine all-to-all"));
    }

    /**
     * An MoE layer's part after the attention, backward: the combine's all-to-all (the output
     * gradients back to the experts' GPUs), the experts at twice the FLOPs, whose gradients
     * are then reduced over the expert-data-parallel group, the dispatch's all-to-all (the
     * input gradients back), the router and the shared experts. Its first operation waits for
     * `entry` too.
     */
    void MoeBackward(uint32_t i, uint32_t l, std::vector<uint32_t> entry)
    {
        if (m_comms.ep != NONE)
        {
            Ep(Label(m_s, 'B', i, l, "combine all-to-all"), entry);
            entry.clear();
        }
        if (m_c.tp > 1 && !entry.empty())
        {
            Enter(entry,
                  Label(m_s, 'B', i, l, "experts all-gather"),
                  m_comms.tp,
                  TransformerStepBuilder::TP_STREAM,
                  CollectiveOp::ALL_GATHER,
                  m_routedShard);
            entry.clear();
        }
        else
        {
            Routed(CollectiveOp::ALL_GATHER, Label(m_s, 'B', i, l, "experts all-gather"));
        }
        const uint32_t done = Compute(2 * m_expertsFwd, Label(m_s, 'B', i, l, "experts"), entry);
        if (m_comms.edp != NONE)
        {
            ReduceGrads(i, m_expertParams, done, Label(m_s, 'R', i, l, "expert grads"), Edp());
        }
        Routed(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "experts reduce-scatter"));
        Ep(Label(m_s, 'B', i, l, "dispatch all-to-all"));
        Compute(2 * m_routerFwd, Label(m_s, 'B', i, l, "router"));
        if (m_c.sharedExperts > 0)
        {
            Tp(CollectiveOp::ALL_GATHER, Label(m_s, 'B', i, l, "shared all-gather"));
            Compute(2 * m_sharedFwd, Label(m_s, 'B', i, l, "shared experts"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "shared reduce-scatter"));
        }
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
            if (IsMoe(l))
            {
                MoeForward(i, l);
                continue;
            }
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
            if (IsMoe(l))
            {
                // ZeRO-3 prefetches the next layer as this one starts.
                if (l > 0)
                {
                    params = ParamsFor(i, l - 1, 'B');
                }
                MoeBackward(i, l, deps);
            }
            else
            {
                Enter(deps, Label(m_s, 'B', i, l, "mlp all-gather"));
                if (l > 0)
                {
                    params = ParamsFor(i, l - 1, 'B');
                }
                Compute(2 * m_mlpFwd, Label(m_s, 'B', i, l, "mlp"));
                Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "mlp reduce-scatter"));
            }
            Tp(CollectiveOp::ALL_GATHER, Label(m_s, 'B', i, l, "attn all-gather"));
            const uint32_t done = Compute(2 * m_attnFwd, Label(m_s, 'B', i, l, "attention"));
            Tp(CollectiveOp::REDUCE_SCATTER, Label(m_s, 'B', i, l, "attn reduce-scatter"));
            // The layer's gradients of this micro-batch are complete (an MoE layer's experts'
            // were reduced as they were done).
            ReduceGrads(i,
                        IsMoe(l) ? m_moeParams : m_layerParams,
                        done,
                        Label(m_s, 'R', i, l, "grads"),
                        Dp());
        }
        if (m_first || m_last)
        {
            ReduceGrads(i, m_embedParams, m_prev, Owner() + " grads", Dp());
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
    const Comms m_comms;
    const std::vector<std::vector<uint32_t>>& m_ppFwd;
    const std::vector<std::vector<uint32_t>>& m_ppBwd;
    const bool m_first;
    const bool m_last;
    const uint32_t m_perStage;
    const uint32_t m_firstLayer; //!< the model's layer index of the stage's first
    const uint32_t m_m;
    const uint64_t m_layerParams; //!< per GPU, a dense layer's
    const uint64_t m_embedParams; //!< per GPU: the input embedding or the LM head
    uint64_t m_moeParams{0};      //!< per GPU, an MoE layer's but its routed experts
    uint64_t m_expertParams{0};   //!< per GPU, an MoE layer's routed experts
    double m_attnFwd;
    double m_mlpFwd;
    double m_headFwd;
    double m_routerFwd{0};
    double m_sharedFwd{0};
    double m_expertsFwd{0};
    uint64_t m_tpShard;
    uint64_t m_routedShard{0};   //!< the tokens a GPU's experts take, as TP's S
    uint64_t m_a2a{0};           //!< the all-to-all's S
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
    StageWriter::Comms comms{tp, dp};
    if (c.experts > 0)
    {
        if (c.ep > 1)
        {
            comms.ep = g.AddCommunicator("ep", StepGraph::Category::EP, c.ep, EpGpusPerNode(c));
        }
        if (ExpertDp(c) > 1)
        {
            comms.edp =
                c.ep == 1 ? dp : g.AddCommunicator("edp", StepGraph::Category::DP, ExpertDp(c));
        }
    }
    for (uint32_t s = 0; s < c.pp; ++s)
    {
        StageWriter(c, g, s, stages[s], comms, ppFwd, ppBwd).Write();
    }
    return g;
}

} // namespace ns3
