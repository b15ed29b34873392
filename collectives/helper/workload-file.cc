/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-file.h"

#include "chakra-trace.h"
#include "nccl-job-log.h"

#include "ns3/input-error.h"
#include "ns3/json-reader.h"
#include "ns3/nccl-datatype.h"
#include "ns3/parse-number.h"
#include "ns3/per-rank-trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace ns3
{

namespace
{

using Json = nlohmann::json;
using Category = StepGraph::Category;

const char* DOC = "docs/workload-format.md";

bool
ParseCategory(const std::string& kind, Category& c)
{
    const std::map<std::string, Category> kinds{{"tp", Category::TP},
                                                {"pp", Category::PP},
                                                {"dp", Category::DP},
                                                {"ep", Category::EP}};
    auto it = kinds.find(kind);
    if (it == kinds.end())
    {
        return false;
    }
    c = it->second;
    return true;
}

/// Stream names to ids: "compute" is 0, others in order of appearance.
/// A communicator's kind ($...kind).
Category
KindOf(const JsonReader& r, const Json& c, const std::string& path)
{
    Category kind = Category::TP;
    const std::string k = r.String(r.Need(c, "kind", path), path + ".kind");
    if (!ParseCategory(k, kind))
    {
        r.Fail(path + ".kind", "\"" + k + "\" is not a kind of communicator", "tp, pp, dp or ep");
    }
    return kind;
}

/// Every operation's id and its index: dependencies may point forward.
std::map<std::string, uint32_t>
IdsOf(const JsonReader& r, const Json& ops)
{
    std::map<std::string, uint32_t> ids;
    for (size_t i = 0; i < ops.size(); ++i)
    {
        const std::string path = JsonReader::Index("$.ops", i);
        const Json& op = r.Object(ops[i], path);
        const std::string id = r.String(r.Need(op, "id", path), path + ".id");
        if (!ids.emplace(id, i).second)
        {
            r.Fail(path + ".id", "\"" + id + "\" names an earlier operation too", "a unique id");
        }
    }
    return ids;
}

/// The operations an operation waits for (its "after"), by index.
std::vector<uint32_t>
AfterOf(const JsonReader& r,
        const Json& op,
        const std::string& path,
        const std::map<std::string, uint32_t>& ids)
{
    std::vector<uint32_t> deps;
    if (!op.contains("after"))
    {
        return deps;
    }
    const Json& after = r.Array(op["after"], path + ".after");
    for (size_t k = 0; k < after.size(); ++k)
    {
        const std::string dep = r.String(after[k], JsonReader::Index(path + ".after", k));
        auto it = ids.find(dep);
        if (it == ids.end())
        {
            r.Fail(JsonReader::Index(path + ".after", k),
                   "no operation \"" + dep + "\"",
                   "the id of an operation of the file");
        }
        deps.push_back(it->second);
    }
    return deps;
}

/// A compute span's duration: compute_us, or flops at the GPU's efficiency.
double
ComputeSecondsOf(const JsonReader& r,
                 const Json& op,
                 const std::string& path,
                 const WorkloadFile::Hardware& hw)
{
    if (op.contains("stream") && r.String(op["stream"], path + ".stream") != "compute")
    {
        r.Fail(path + ".stream", "a compute span off the compute stream", "\"compute\"");
    }
    return op.contains("compute_us")
               ? r.Number(op["compute_us"], path + ".compute_us", 0, 1e12) * 1e-6
               : r.Number(op["flops"], path + ".flops", 0, 1e30) /
                     (hw.peakTflops * 1e12 * hw.efficiency);
}

/// The collective an operation names.
CollectiveOp
CollectiveOf(const JsonReader& r, const Json& op, const std::string& path)
{
    CollectiveOp c = CollectiveOp::ALL_REDUCE;
    const std::string name = r.String(op["collective"], path + ".collective");
    if (!ParseCollectiveOp(name, c))
    {
        r.Fail(path + ".collective",
               "\"" + name + "\" is not a collective",
               "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv");
    }
    return c;
}

/// What each rank contributes: bytes, or count elements of datatype (bfloat16 by default).
uint64_t
BytesOf(const JsonReader& r, const Json& op, const std::string& path)
{
    if (op.contains("bytes") == op.contains("count"))
    {
        r.Fail(path, "needs one of \"bytes\" and \"count\"", "the bytes each rank contributes");
    }
    if (op.contains("bytes"))
    {
        return r.Integer(op["bytes"], path + ".bytes", 1, INT64_MAX);
    }
    uint32_t size = 2; // bfloat16
    if (op.contains("datatype"))
    {
        const std::string t = r.String(op["datatype"], path + ".datatype");
        if (!ParseNcclDatatype(t, size))
        {
            r.Fail(path + ".datatype", "\"" + t + "\" is not a datatype", NcclDatatypeNames());
        }
    }
    const int64_t count = r.Integer(op["count"], path + ".count", 1, INT64_MAX);
    // count x size must fit as "bytes" does (the product overflowed into an arbitrary size,
    // undefined behaviour).
    if (count > INT64_MAX / size)
    {
        r.Fail(path + ".count",
               std::to_string(count) + " elements of " + std::to_string(size) +
                   " bytes is more than 2^63 bytes",
               "a count up to " + std::to_string(INT64_MAX / size));
    }
    return count * size;
}

class Streams
{
  public:
    uint32_t Id(const std::string& name)
    {
        if (name == "compute")
        {
            return 0;
        }
        auto [it, added] = m_ids.emplace(name, m_ids.size() + 1);
        return it->second;
    }

  private:
    std::map<std::string, uint32_t> m_ids;
};

/**
 * \brief A number of an NCCL log line (digits, as the line's pattern matched them), in range:
 * std::stoul threw std::out_of_range past 2^64 and truncated to 32 bits silently.
 * \param digits the field's text
 * \param lo smallest value \param hi largest value
 * \param file the log \param line its line number
 * \param field the field's name in the line, e.g. "count"
 * \return the value
 * \throw InputError naming the file, line and field
 */
uint64_t
LogNumber(const std::string& digits,
          uint64_t lo,
          uint64_t hi,
          const std::string& file,
          uint64_t line,
          const std::string& field)
{
    bool inRange = true;
    uint64_t v = 0;
    try
    {
        v = ParseUnsigned(digits, hi);
    }
    catch (const InputError&)
    {
        inRange = false; // a sign, or above hi
    }
    if (!inRange || v < lo)
    {
        throw InputError(file + ":" + std::to_string(line) + ": " + field + " " + digits +
                             " is out of range",
                         field + " from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    return v;
}

/// Largest communicator of an NCCL log, as for JSON workloads' "ranks".
constexpr uint64_t MAX_LOG_RANKS = 1 << 24;

} // namespace

uint32_t
WorkloadFile::NcclDatatypeBytes(int64_t datatype)
{
    // ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64, ncclFloat16,
    // ncclFloat32, ncclFloat64, ncclBfloat16, ncclFloat8e4m3, ncclFloat8e5m2.
    static const uint32_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return datatype >= 0 && datatype < 12 ? sizes[datatype] : 0;
}

WorkloadFile::Workload
WorkloadFile::Read(const std::string& path,
                   const Hardware& hardware,
                   const std::string& commGroups,
                   bool wholeJob)
{
    if (ChakraTrace::IsTrace(path))
    {
        return ChakraTrace::Read(path, commGroups, hardware.gpusPerNode);
    }
    if (IsPerRankJson(path) && commGroups.empty())
    {
        return ReadPerRankJson(path, hardware);
    }
    if (std::ifstream(path + ".0.log").good() && commGroups.empty())
    {
        std::vector<std::pair<std::string, std::string>> logs;
        for (std::string f = path + ".0.log"; std::ifstream(f).good();
             f = path + "." + std::to_string(logs.size()) + ".log")
        {
            std::ifstream in(f);
            std::ostringstream text;
            text << in.rdbuf();
            logs.emplace_back(f, text.str());
        }
        return NcclJobLog::Parse(logs, hardware);
    }
    if (!commGroups.empty())
    {
        throw InputError("--commGroups with " + path + ", which is not a Chakra trace prefix",
                         "--commGroups with Chakra traces only (<prefix>.0.et, ...)");
    }
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path + ": cannot be read",
                         "a workload file (JSON, " + std::string(DOC) + ") or an NCCL log");
    }
    std::ostringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{')
    {
        return ParseJson(text, path, hardware);
    }
    return wholeJob ? NcclJobLog::Parse({{path, text}}, hardware)
                    : ParseNcclLog(text, path, hardware);
}

WorkloadFile::Workload
WorkloadFile::ParseJson(const std::string& text, const std::string& file, const Hardware& hw)
{
    const Json root = JsonReader::Parse(text, file, DOC);
    const JsonReader r(file);
    r.Object(root, "$");
    r.OnlyKeys(root, "$", {"name", "description", "model_flops", "gpus", "communicators", "ops"});
    Workload w;
    w.format = "json";
    w.name = root.contains("name") ? r.String(root["name"], "$.name") : file;
    if (root.contains("model_flops"))
    {
        w.modelFlops = r.Number(root["model_flops"], "$.model_flops", 0, 1e30);
    }
    if (root.contains("gpus"))
    {
        w.gpus = static_cast<uint32_t>(r.Integer(root["gpus"], "$.gpus", 1, 1 << 24));
    }
    StepGraph& g = w.graph;
    std::map<std::string, uint32_t> comms;
    const Json& cs = r.Object(r.Need(root, "communicators", "$"), "$.communicators");
    for (auto it = cs.begin(); it != cs.end(); ++it)
    {
        const std::string path = "$.communicators." + it.key();
        const Json& c = r.Object(it.value(), path);
        r.OnlyKeys(c, path, {"kind", "ranks", "gpus_per_node"});
        const Category kind = KindOf(r, c, path);
        const auto n =
            static_cast<uint32_t>(r.Integer(r.Need(c, "ranks", path), path + ".ranks", 1, 1 << 24));
        uint32_t local = 0;
        if (c.contains("gpus_per_node"))
        {
            local = static_cast<uint32_t>(r.Integer(c["gpus_per_node"],
                                                    path + ".gpus_per_node",
                                                    1,
                                                    std::max<uint32_t>(1, hw.gpusPerNode)));
        }
        comms[it.key()] = g.AddCommunicator(it.key(), kind, n, local);
    }
    std::string known;
    for (const auto& [name, id] : comms)
    {
        known += (known.empty() ? "" : ", ") + name;
    }

    const Json& ops = r.Array(r.Need(root, "ops", "$"), "$.ops");
    std::map<std::string, uint32_t> ranks;
    const std::map<std::string, uint32_t> ids = IdsOf(r, ops);
    auto rankOf = [&](const Json& v, const std::string& path) {
        const std::string name = r.String(v, path);
        auto [it, added] = ranks.emplace(name, ranks.size());
        if (added)
        {
            g.AddRank(name);
        }
        return it->second;
    };
    Streams streams;
    for (size_t i = 0; i < ops.size(); ++i)
    {
        const std::string path = JsonReader::Index("$.ops", i);
        const Json& op = ops[i];
        r.OnlyKeys(op,
                   path,
                   {"id",
                    "rank",
                    "ranks",
                    "stream",
                    "after",
                    "compute_us",
                    "flops",
                    "collective",
                    "comm",
                    "count",
                    "datatype",
                    "bytes"});
        StepGraph::Op o;
        o.label = op["id"].get<std::string>();
        if (op.contains("rank") == op.contains("ranks"))
        {
            r.Fail(path,
                   "needs one of \"rank\" and \"ranks\"",
                   "\"rank\": NAME or \"ranks\": [NAMES]");
        }
        if (op.contains("rank"))
        {
            o.ranks.push_back(rankOf(op["rank"], path + ".rank"));
        }
        else
        {
            const Json& list = r.Array(op["ranks"], path + ".ranks");
            for (size_t k = 0; k < list.size(); ++k)
            {
                o.ranks.push_back(rankOf(list[k], JsonReader::Index(path + ".ranks", k)));
            }
            if (o.ranks.empty())
            {
                r.Fail(path + ".ranks", "is empty", "at least one rank");
            }
        }
        o.deps = AfterOf(r, op, path, ids);
        const bool compute = op.contains("compute_us") || op.contains("flops");
        if (compute == op.contains("collective"))
        {
            r.Fail(path,
                   "is neither a compute span nor a collective, or both",
                   "\"compute_us\" or \"flops\", or \"collective\" with \"comm\"");
        }
        if (compute)
        {
            o.category = Category::COMPUTE;
            if (o.ranks.size() != 1)
            {
                r.Fail(path, "a compute span on several ranks", "one \"rank\"");
            }
            o.seconds = ComputeSecondsOf(r, op, path, hw);
            o.stream = 0;
        }
        else
        {
            o.op = CollectiveOf(r, op, path);
            const std::string comm = r.String(r.Need(op, "comm", path), path + ".comm");
            auto it = comms.find(comm);
            if (it == comms.end())
            {
                r.Fail(path + ".comm",
                       "no communicator \"" + comm + "\"",
                       "one of $.communicators (" + known + ")");
            }
            o.comm = static_cast<int32_t>(it->second);
            o.category = g.GetCommunicators()[it->second].category;
            o.bytes = BytesOf(r, op, path);
            o.stream =
                streams.Id(op.contains("stream") ? r.String(op["stream"], path + ".stream") : comm);
        }
        g.AddOp(o);
    }
    const std::string problem = g.Validate();
    if (!problem.empty())
    {
        throw InputError(file + ": $.ops: " + problem, "operations whose dependencies end");
    }
    return w;
}

bool
WorkloadFile::IsPerRankJson(const std::string& prefix)
{
    return std::ifstream(prefix + ".0.json").good();
}

WorkloadFile::Workload
WorkloadFile::ReadPerRankJson(const std::string& prefix, const Hardware& hardware)
{
    std::vector<std::pair<std::string, std::string>> files;
    for (;;)
    {
        const std::string path = prefix + "." + std::to_string(files.size()) + ".json";
        std::ifstream in(path);
        if (!in)
        {
            break;
        }
        std::ostringstream text;
        text << in.rdbuf();
        files.emplace_back(path, text.str());
    }
    if (files.empty())
    {
        throw InputError(prefix + ".0.json: cannot be read",
                         "per-rank JSON files <prefix>.0.json, <prefix>.1.json, ... (" +
                             std::string(DOC) + ")");
    }
    return ParsePerRankJson(files, hardware);
}

WorkloadFile::Workload
WorkloadFile::ParsePerRankJson(const std::vector<std::pair<std::string, std::string>>& files,
                               const Hardware& hw)
{
    const uint32_t nGpus = files.size();
    PerRankTrace trace(nGpus);
    Workload w;
    w.format = "per-rank json";
    w.gpus = nGpus;
    w.perGpu = true;
    for (uint32_t gpu = 0; gpu < nGpus; ++gpu)
    {
        const std::string& file = files[gpu].first;
        const Json root = JsonReader::Parse(files[gpu].second, file, DOC);
        const JsonReader r(file);
        r.Object(root, "$");
        r.OnlyKeys(root, "$", {"name", "description", "model_flops", "communicators", "ops"});
        if (gpu == 0)
        {
            w.name = root.contains("name") ? r.String(root["name"], "$.name") : file;
            w.modelFlops = root.contains("model_flops")
                               ? r.Number(root["model_flops"], "$.model_flops", 0, 1e30)
                               : 0;
        }
        if (root.contains("communicators"))
        {
            const Json& cs = r.Object(root["communicators"], "$.communicators");
            for (auto it = cs.begin(); it != cs.end(); ++it)
            {
                const std::string path = "$.communicators." + it.key();
                const Json& c = r.Object(it.value(), path);
                r.OnlyKeys(c, path, {"kind", "gpus"});
                PerRankTrace::Communicator comm{it.key(), KindOf(r, c, path), {}};
                const Json& gpus = r.Array(r.Need(c, "gpus", path), path + ".gpus");
                for (size_t k = 0; k < gpus.size(); ++k)
                {
                    comm.gpus.push_back(static_cast<uint32_t>(
                        r.Integer(gpus[k], JsonReader::Index(path + ".gpus", k), 0, nGpus - 1)));
                }
                trace.AddCommunicator(comm, file + ": " + path);
            }
        }
        const Json& ops = r.Array(r.Need(root, "ops", "$"), "$.ops");
        const std::map<std::string, uint32_t> ids = IdsOf(r, ops);
        std::vector<PerRankTrace::Op> list;
        for (size_t i = 0; i < ops.size(); ++i)
        {
            const std::string path = JsonReader::Index("$.ops", i);
            const Json& op = ops[i];
            r.OnlyKeys(op,
                       path,
                       {"id",
                        "stream",
                        "after",
                        "compute_us",
                        "flops",
                        "collective",
                        "comm",
                        "send",
                        "recv",
                        "count",
                        "datatype",
                        "bytes"});
            PerRankTrace::Op o;
            o.label = op["id"].get<std::string>();
            o.where = file + ": " + path + " (" + o.label + ")";
            o.after = AfterOf(r, op, path, ids);
            const bool compute = op.contains("compute_us") || op.contains("flops");
            if (compute + op.contains("collective") + op.contains("send") + op.contains("recv") !=
                1)
            {
                r.Fail(path,
                       "is not one of a compute span, a collective, a send and a receive",
                       "\"compute_us\" or \"flops\", \"collective\" with \"comm\", "
                       "\"send\": GPU or \"recv\": GPU");
            }
            if (compute)
            {
                o.seconds = ComputeSecondsOf(r, op, path, hw);
                list.push_back(o);
                continue;
            }
            o.bytes = BytesOf(r, op, path);
            o.stream = op.contains("stream") ? r.String(op["stream"], path + ".stream") : "";
            if (op.contains("collective"))
            {
                o.op = CollectiveOf(r, op, path);
                o.comm = r.String(r.Need(op, "comm", path), path + ".comm");
            }
            else
            {
                o.receive = op.contains("recv");
                const std::string key = o.receive ? "recv" : "send";
                o.peer = static_cast<int32_t>(r.Integer(op[key], path + "." + key, 0, nGpus - 1));
            }
            list.push_back(o);
        }
        trace.SetOps(gpu, std::move(list));
    }
    w.graph = trace.Assemble();
    return w;
}

WorkloadFile::NcclLine
WorkloadFile::ParseNcclCall(const std::string& s,
                            const std::string& file,
                            uint64_t number,
                            NcclCall& call)
{
    // enqueue.cc: INFO(NCCL_COLL, "%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype
    // %d op %d root %d comm %p [nranks=%d] stream %p", ...) behind "host:pid:tid [dev] NCCL
    // INFO ".
    static const std::regex candidate(R"(NCCL INFO (\w+): opCount )");
    static const std::regex line(
        R"(^(\S+):(\d+):\d+ \[\d+\] NCCL INFO (\w+): opCount ([0-9a-fA-F]+) sendbuff \S+ )"
        R"(recvbuff \S+ count (\d+) datatype (-?\d+) op (-?\d+) root (-?\d+) comm (\S+) )"
        R"(\[nranks=(\d+)\] stream (\S+)\s*$)");
    static const std::map<std::string, CollectiveOp> names{
        {"AllReduce", CollectiveOp::ALL_REDUCE},
        {"AllGather", CollectiveOp::ALL_GATHER},
        {"ReduceScatter", CollectiveOp::REDUCE_SCATTER},
        {"Broadcast", CollectiveOp::BROADCAST},
        {"Reduce", CollectiveOp::REDUCE},
        {"Send", CollectiveOp::SEND_RECV},
        {"Recv", CollectiveOp::SEND_RECV}};
    std::smatch head;
    if (!std::regex_search(s, head, candidate) || !names.count(head[1].str()))
    {
        return NOT_A_CALL;
    }
    std::smatch m;
    // A datatype is 0-11: longer digits are none (std::stoll threw past 2^63).
    const uint32_t datatype = std::regex_match(s, m, line) && m[6].length() <= 2
                                  ? NcclDatatypeBytes(std::stoll(m[6].str()))
                                  : 0;
    if (m.empty() || datatype == 0)
    {
        return MALFORMED;
    }
    call.process = m[1].str() + ":" + m[2].str();
    call.name = m[3].str();
    call.opCount = m[4].str();
    call.op = names.at(call.name);
    // Bytes are count x the datatype's size, at most 2^63 - 1 as in a JSON workload.
    call.bytes = LogNumber(m[5].str(), 0, INT64_MAX / datatype, file, number, "count") * datatype;
    call.root = m[8].str();
    call.comm = m[9].str();
    call.nRanks =
        static_cast<uint32_t>(LogNumber(m[10].str(), 1, MAX_LOG_RANKS, file, number, "nranks"));
    call.stream = m[11].str();
    return CALL;
}

uint64_t
WorkloadFile::ParseNcclNumber(const std::string& digits,
                              uint64_t lo,
                              uint64_t hi,
                              const std::string& file,
                              uint64_t line,
                              const std::string& field)
{
    return LogNumber(digits, lo, hi, file, line, field);
}

std::string
WorkloadFile::DescribeBadNcclLines(const std::vector<std::string>& places)
{
    std::string also;
    for (size_t i = 1; i < places.size() && i < 6; ++i)
    {
        also += (also.empty() ? "; also " : ", ") + places[i];
    }
    if (places.size() > 6)
    {
        also += " and " + std::to_string(places.size() - 6) + " more";
    }
    return places[0] +
           ": not an NCCL collective line (\"<Op>: opCount H sendbuff P recvbuff P count N "
           "datatype D op O root R comm P [nranks=N] stream P\", a datatype 0-11)" +
           also;
}

WorkloadFile::Workload
WorkloadFile::ParseNcclLog(const std::string& text, const std::string& file, const Hardware& hw)
{
    // init.cc, once per rank and communicator: where its GPUs sit.
    static const std::regex init(R"(^(\S+):(\d+):\d+ \[\d+\] NCCL INFO comm (\S+) rank (\d+) )"
                                 R"(nRanks (\d+) nNodes (\d+) localRanks (\d+) )");
    Workload w;
    w.format = "nccl-log";
    w.name = file;
    StepGraph& g = w.graph;
    const uint32_t rank = g.AddRank("gpu");
    std::map<std::string, uint32_t> comms; // comm pointer (+ " p2p") -> communicator

    struct Shape
    {
        uint32_t rank, nRanks, nNodes, localRanks;
    };

    std::map<std::string, Shape> shapes; // "host:pid comm" -> its init line
    Streams streams;
    std::string process;
    uint64_t others = 0;
    uint64_t empty = 0;
    std::vector<std::string> bad;
    std::istringstream in(text);
    std::string s;
    for (uint64_t number = 1; std::getline(in, s); ++number)
    {
        std::smatch head;
        if (std::regex_search(s, head, init))
        {
            shapes[head[1].str() + ":" + head[2].str() + " " + head[3].str()] = {
                static_cast<uint32_t>(
                    LogNumber(head[4].str(), 0, MAX_LOG_RANKS - 1, file, number, "rank")),
                static_cast<uint32_t>(
                    LogNumber(head[5].str(), 1, MAX_LOG_RANKS, file, number, "nRanks")),
                static_cast<uint32_t>(
                    LogNumber(head[6].str(), 1, MAX_LOG_RANKS, file, number, "nNodes")),
                static_cast<uint32_t>(
                    LogNumber(head[7].str(), 1, MAX_LOG_RANKS, file, number, "localRanks"))};
            continue;
        }
        NcclCall call;
        const NcclLine kind = ParseNcclCall(s, file, number, call);
        if (kind == NOT_A_CALL)
        {
            continue;
        }
        if (kind == MALFORMED)
        {
            bad.push_back(file + ":" + std::to_string(number));
            continue;
        }
        const std::string& who = call.process;
        if (process.empty())
        {
            process = who;
        }
        if (who != process)
        {
            ++others;
            continue;
        }
        if (call.bytes == 0)
        {
            ++empty;
            continue;
        }
        const CollectiveOp op = call.op;
        const bool p2p = op == CollectiveOp::SEND_RECV;
        const uint32_t nRanks = call.nRanks;
        // With the communicator's init line its GPUs per node are known, and a Send or Recv
        // peer (the root field) inside the node goes over NVLink; without, the GPUs of a
        // communicator that fits in a node share it and a larger one has one per node.
        auto shape = shapes.find(who + " " + call.comm);
        uint32_t local = 0;
        bool sameNode = false;
        if (shape != shapes.end() && shape->second.nRanks == nRanks)
        {
            const Shape& sh = shape->second;
            local = sh.nNodes * sh.localRanks == nRanks ? sh.localRanks : 0;
            // The root field is the peer of a Send or Recv (unused, often 0, otherwise).
            const uint64_t peer =
                p2p ? LogNumber(call.root, 0, nRanks - 1, file, number, "root (the peer)") : 0;
            sameNode = local > 0 && sh.rank / local == peer / local;
        }
        const std::string key = call.comm + (p2p ? (sameNode ? " p2p nvlink" : " p2p") : "");
        auto it = comms.find(key);
        if (it == comms.end())
        {
            Category kind = nRanks <= hw.gpusPerNode ? Category::TP : Category::DP;
            if (local > 0)
            {
                kind = local == nRanks ? Category::TP : Category::DP;
            }
            if (p2p)
            {
                kind = Category::PP;
                local = sameNode ? 2 : 1;
            }
            const std::string name = "comm" + std::to_string(comms.size()) +
                                     (p2p ? (sameNode ? "-p2p-nvlink" : "-p2p") : "");
            it = comms.emplace(key, g.AddCommunicator(name, kind, p2p ? 2 : nRanks, local)).first;
        }
        g.AddCollective(it->second,
                        {rank},
                        streams.Id(call.stream),
                        op,
                        call.bytes,
                        {},
                        file + ":" + std::to_string(number) + " " + call.name + " opCount " +
                            call.opCount);
    }
    if (!bad.empty())
    {
        throw InputError(DescribeBadNcclLines(bad),
                         "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL output, or JSON (" +
                             std::string(DOC) + ")");
    }
    if (g.GetOps().empty())
    {
        throw InputError(file + ": no NCCL collective line",
                         "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL output, or JSON (" +
                             std::string(DOC) + ")");
    }
    if (others > 0)
    {
        w.notes.push_back(std::to_string(others) + " lines of other processes than " + process +
                          " left out (one GPU's calls are replayed)");
    }
    if (empty > 0)
    {
        w.notes.push_back(std::to_string(empty) + " calls of count 0 left out");
    }
    return w;
}

} // namespace ns3
