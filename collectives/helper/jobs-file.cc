/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "jobs-file.h"

#include "step-presets.h"

#include "ns3/input-error.h"
#include "ns3/json-reader.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ns3
{

namespace
{

/// What the file is, for messages.
const std::string DOC = "a jobs file (docs/jobs-format.md)";

/// The largest degree or count a job may name: far beyond any cluster the fabric builds.
constexpr int64_t MAX_COUNT = 1 << 20;

} // namespace

std::vector<JobsFile::Job>
JobsFile::Read(const std::string& path)
{
    std::string text;
    JsonReader::Load(path, text, DOC);
    return Parse(text, path);
}

std::vector<JobsFile::Job>
JobsFile::Parse(const std::string& text, const std::string& file)
{
    using Json = JsonReader::Json;
    const Json root = JsonReader::Parse(text, file, DOC);
    const JsonReader r(file);
    r.Object(root, "$");
    r.OnlyKeys(root, "$", {"jobs"});
    const Json& list = r.Array(r.Need(root, "jobs", "$"), "$.jobs");
    if (list.empty())
    {
        r.Fail("$.jobs", "no job", "at least one job");
    }
    std::vector<Job> jobs;
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i)
    {
        const std::string path = JsonReader::Index("$.jobs", i);
        const Json& o = r.Object(list[i], path);
        r.OnlyKeys(o, path, {"name",        "model",   "gpus",      "tp",
                             "pp",          "dp",      "ep",        "capacity_factor",
                             "placement",   "start",   "jitter",    "global_batch",
                             "micro_batch", "seq_len", "layers",    "hidden",
                             "ffn",         "heads",   "kv_heads",  "vocab",
                             "experts",     "top_k",   "expert_ffn"});
        Job j;
        j.path = path;
        j.name = r.String(r.Need(o, "name", path), path + ".name");
        // A name names the job's files (timeline-<name>.json): no path or shell characters.
        const bool plain = std::all_of(j.name.begin(), j.name.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ||
                   ch == '.';
        });
        if (j.name.empty() || j.name.front() == '.' || !plain)
        {
            r.Fail(path + ".name",
                   "\"" + j.name + "\" is not a plain name",
                   "a name of letters, digits, '-', '_' and '.' (not starting with '.')");
        }
        if (!names.insert(j.name).second)
        {
            r.Fail(path + ".name",
                   "a second job named \"" + j.name + "\"",
                   "a name of its own for every job");
        }
        j.model = r.String(r.Need(o, "model", path), path + ".model");
        const std::vector<std::string>& models = StepPresets::GetModels();
        if (std::find(models.begin(), models.end(), j.model) == models.end())
        {
            std::string known;
            for (const std::string& m : models)
            {
                known += (known.empty() ? "" : ", ") + m;
            }
            r.Fail(path + ".model", "\"" + j.model + "\" is not a model", "one of " + known);
        }
        auto count = [&](const char* key, uint32_t fallback) {
            return o.contains(key)
                       ? static_cast<uint32_t>(r.Integer(o[key], path + "." + key, 1, MAX_COUNT))
                       : fallback;
        };
        j.gpus =
            static_cast<uint32_t>(r.Integer(r.Need(o, "gpus", path), path + ".gpus", 1, MAX_COUNT));
        j.tp = count("tp", 8);
        j.pp = count("pp", 1);
        if (j.gpus % (static_cast<uint64_t>(j.tp) * j.pp) != 0)
        {
            r.Fail(path + ".gpus",
                   std::to_string(j.gpus) + " GPUs do not divide into TP " + std::to_string(j.tp) +
                       " x PP " + std::to_string(j.pp),
                   "GPUs that TP x PP divides");
        }
        j.dp = count("dp", j.gpus / (j.tp * j.pp));
        if (static_cast<uint64_t>(j.tp) * j.pp * j.dp != j.gpus)
        {
            r.Fail(path + ".dp",
                   "TP x PP x DP = " + std::to_string(j.tp) + " x " + std::to_string(j.pp) + " x " +
                       std::to_string(j.dp) + " is not " + std::to_string(j.gpus) + " GPUs",
                   "degrees whose product is \"gpus\"");
        }
        j.ep = count("ep", 1);
        if (o.contains("capacity_factor"))
        {
            j.capacityFactor =
                r.Number(o["capacity_factor"], path + ".capacity_factor", 0, MAX_COUNT);
        }
        if (o.contains("placement"))
        {
            j.placement =
                ClusterPlacement::Spec::Parse(r.String(o["placement"], path + ".placement"),
                                              file + ": " + path + ".placement");
        }
        if (o.contains("jitter"))
        {
            j.jitter = r.String(o["jitter"], path + ".jitter");
            try
            {
                ComputeJitter::Parse(j.jitter, path + ".jitter");
            }
            catch (const InputError& e)
            {
                throw e.WithContext(file);
            }
        }
        if (o.contains("start"))
        {
            j.start = r.TimeOf(o["start"], path + ".start");
        }
        j.globalBatch = count("global_batch", 0);
        j.microBatch = count("micro_batch", 0);
        j.seqLen = count("seq_len", 0);
        j.shape.layers = count("layers", 0);
        j.shape.hidden = count("hidden", 0);
        j.shape.ffn = count("ffn", 0);
        j.shape.heads = count("heads", 0);
        j.shape.kvHeads = count("kv_heads", 0);
        j.shape.vocab = count("vocab", 0);
        j.shape.experts = count("experts", 0);
        j.shape.topK = count("top_k", 0);
        j.shape.expertFfn = count("expert_ffn", 0);
        jobs.push_back(j);
    }
    return jobs;
}

} // namespace ns3
