/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "nccl-job-log.h"

#include "ns3/input-error.h"
#include "ns3/per-rank-trace.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

constexpr const char* EXPECTED =
    "the log of every process, NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL (docs/"
    "workload-format.md)";

/// A communicator of one process, from its Init COMPLETE line.
struct Member
{
    uint32_t rank{0};
    uint32_t nRanks{0};
    std::string commId; //!< "" for a split
    std::string parent; //!< a split's parent's pointer
    std::string split;  //!< " split S color C"
    std::string place;  //!< file:line
};

/// A call of one process.
struct Call
{
    WorkloadFile::NcclCall call;
    std::string file;
    uint64_t number;
    std::string place; //!< file:line
};

/// The processes of a communicator, by its identity.
struct Group
{
    uint32_t nRanks{0};
    std::vector<std::pair<std::string, uint32_t>> ranks; //!< (process, rank)
};

/// One process: its communicators by pointer, its calls in log order.
struct Process
{
    std::map<std::string, Member> comms;
    std::vector<Call> calls;
};

} // namespace

WorkloadFile::Workload
NcclJobLog::Parse(const std::vector<std::pair<std::string, std::string>>& files,
                  const WorkloadFile::Hardware& hw)
{
    // init.cc: INFO(NCCL_INIT, "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx
    // commId 0x%llx - Init COMPLETE", ...), or for ncclCommSplit "... busId %lx parent %p
    // splitCount %d color %d key %d - Init COMPLETE" (NCCL 2.30; older ones print no function
    // name, and a commId for splits too).
    static const std::regex complete(
        R"(^(\S+):(\d+):\d+ \[\d+\] NCCL INFO (?:\w+ )?comm (\S+) rank (\d+) nranks (\d+) .*)"
        R"(- Init COMPLETE)");
    static const std::regex commId(R"( commId (0x[0-9a-fA-F]+))");
    static const std::regex split(R"( parent (\S+) splitCount (\d+) color (-?\d+))");
    std::map<std::string, Process> processes;
    std::vector<std::string> order; // processes by first appearance
    std::vector<std::string> bad;
    uint64_t empty = 0;
    const auto processOf = [&](const std::string& name) -> Process& {
        if (processes.count(name) == 0)
        {
            order.push_back(name);
        }
        return processes[name];
    };
    for (const auto& [file, text] : files)
    {
        std::istringstream in(text);
        std::string s;
        for (uint64_t number = 1; std::getline(in, s); ++number)
        {
            const std::string place = file + ":" + std::to_string(number);
            std::smatch m;
            if (std::regex_search(s, m, complete))
            {
                Member c;
                c.rank = static_cast<uint32_t>(
                    WorkloadFile::ParseNcclNumber(m[4].str(), 0, 1 << 24, file, number, "rank"));
                c.nRanks = static_cast<uint32_t>(
                    WorkloadFile::ParseNcclNumber(m[5].str(), 1, 1 << 24, file, number, "nranks"));
                c.place = place;
                std::smatch id;
                if (std::regex_search(s, id, commId))
                {
                    c.commId = id[1].str();
                }
                else if (std::regex_search(s, id, split))
                {
                    c.parent = id[1].str();
                    c.split = " split " + id[2].str() + " color " + id[3].str();
                }
                else
                {
                    throw InputError(place + ": an Init COMPLETE line without a commId or a "
                                             "parent",
                                     EXPECTED);
                }
                if (c.rank >= c.nRanks)
                {
                    throw InputError(place + ": rank " + std::to_string(c.rank) + " of " +
                                         std::to_string(c.nRanks),
                                     EXPECTED);
                }
                processOf(m[1].str() + ":" + m[2].str()).comms[m[3].str()] = c;
                continue;
            }
            WorkloadFile::NcclCall call;
            const WorkloadFile::NcclLine kind = WorkloadFile::ParseNcclCall(s, file, number, call);
            if (kind == WorkloadFile::MALFORMED)
            {
                bad.push_back(place);
            }
            else if (kind == WorkloadFile::CALL && call.bytes == 0)
            {
                ++empty;
            }
            else if (kind == WorkloadFile::CALL)
            {
                processOf(call.process).calls.push_back({call, file, number, place});
            }
        }
    }
    if (!bad.empty())
    {
        throw InputError(WorkloadFile::DescribeBadNcclLines(bad), EXPECTED);
    }
    if (order.empty())
    {
        throw InputError(files.front().first + ": no NCCL collective line", EXPECTED);
    }
    // Each communicator's identity across processes.
    std::map<std::pair<std::string, std::string>, std::string> ids; // (process, pointer)
    // A split's identity is its parent's and the split's: walk up to a commId (iteratively: a
    // log may chain splits deep, or, malformed, in a circle).
    const auto identity = [&](const std::string& process,
                              const std::string& pointer,
                              const std::string& place) -> std::string {
        const Process& p = processes.at(process);
        std::vector<const Member*> chain;
        std::set<std::string> seen;
        std::string at = pointer;
        std::string from = place;
        std::string id;
        for (;;)
        {
            const auto known = ids.find({process, at});
            if (known != ids.end())
            {
                id = known->second;
                break;
            }
            const auto it = p.comms.find(at);
            if (it == p.comms.end())
            {
                throw InputError(from + ": communicator " + at + " of " + process +
                                     " has no Init COMPLETE line",
                                 EXPECTED);
            }
            if (!seen.insert(at).second)
            {
                throw InputError(from + ": communicator " + at + " of " + process +
                                     " is split from itself",
                                 EXPECTED);
            }
            chain.push_back(&it->second);
            if (!it->second.commId.empty())
            {
                id = it->second.commId;
                chain.pop_back();
                ids[{process, at}] = id;
                break;
            }
            from = it->second.place;
            at = it->second.parent;
        }
        // Back down the chain: each split's identity from its parent's.
        std::vector<std::string> pointers{pointer};
        for (size_t k = 1; k < chain.size(); ++k)
        {
            pointers.push_back(chain[k - 1]->parent);
        }
        for (size_t k = chain.size(); k-- > 0;)
        {
            id += chain[k]->split;
            ids[{process, pointers[k]}] = id;
        }
        return id;
    };
    // A process's GPU: its rank in a communicator of every process.
    const uint32_t nGpus = order.size();
    std::map<std::string, Group> groups;
    for (const std::string& name : order)
    {
        for (const auto& [pointer, c] : processes.at(name).comms)
        {
            Group& g = groups[identity(name, pointer, c.place)];
            g.nRanks = c.nRanks;
            g.ranks.emplace_back(name, c.rank);
        }
    }
    std::map<std::string, uint32_t> gpuOf;
    for (const auto& [id, g] : groups)
    {
        if (g.nRanks == nGpus && g.ranks.size() == nGpus && gpuOf.empty())
        {
            for (const auto& [name, rank] : g.ranks)
            {
                gpuOf[name] = rank;
            }
        }
    }
    if (gpuOf.size() != nGpus)
    {
        throw InputError(files.front().first + ": no communicator has all " +
                             std::to_string(nGpus) + " processes of the log, each once",
                         "the init lines of a communicator of every process (the world), "
                         "NCCL_DEBUG_SUBSYS=INIT,COLL");
    }
    // The communicators, their GPUs in rank order.
    PerRankTrace trace(nGpus);
    std::map<std::string, std::vector<uint32_t>> gpusOf;
    for (const auto& [id, g] : groups)
    {
        std::vector<int64_t> gpus(g.nRanks, -1);
        for (const auto& [name, rank] : g.ranks)
        {
            if (rank < g.nRanks)
            {
                gpus[rank] = gpuOf.at(name);
            }
        }
        const auto missing = std::find(gpus.begin(), gpus.end(), -1);
        if (missing != gpus.end() || g.ranks.size() != g.nRanks)
        {
            throw InputError(files.front().first + ": communicator " + id + " of " +
                                 std::to_string(g.nRanks) + " ranks: rank " +
                                 std::to_string(missing - gpus.begin()) +
                                 " is no process of the log, or a rank is in two",
                             EXPECTED);
        }
        PerRankTrace::Communicator c;
        c.name = id; // "0x<commId>", or its parent's and " split S color C"
        for (int64_t gpu : gpus)
        {
            c.gpus.push_back(static_cast<uint32_t>(gpu));
        }
        const bool oneServer = std::all_of(c.gpus.begin(), c.gpus.end(), [&](uint32_t gpu) {
            return gpu / hw.gpusPerNode == c.gpus[0] / hw.gpusPerNode;
        });
        c.category = oneServer ? StepGraph::Category::TP : StepGraph::Category::DP;
        gpusOf[id] = c.gpus;
        trace.AddCommunicator(c, files.front().first);
    }
    // Each GPU's calls.
    for (const std::string& name : order)
    {
        std::map<std::string, std::string> streams; // pointer -> "s<k>"
        std::vector<PerRankTrace::Op> ops;
        for (const Call& c : processes.at(name).calls)
        {
            const std::string id = identity(name, c.call.comm, c.place);
            PerRankTrace::Op o;
            o.label = c.call.name + " opCount " + c.call.opCount;
            o.where = c.place;
            o.stream =
                streams.emplace(c.call.stream, "s" + std::to_string(streams.size())).first->second;
            o.bytes = c.call.bytes;
            if (c.call.op == CollectiveOp::SEND_RECV)
            {
                const std::vector<uint32_t>& gpus = gpusOf.at(id);
                const uint64_t peer = WorkloadFile::ParseNcclNumber(c.call.root,
                                                                    0,
                                                                    gpus.size() - 1,
                                                                    c.file,
                                                                    c.number,
                                                                    "root (the peer)");
                o.peer = static_cast<int32_t>(gpus[peer]);
                o.receive = c.call.name == "Recv";
            }
            else
            {
                o.comm = id;
                o.op = c.call.op;
            }
            ops.push_back(o);
        }
        trace.SetOps(gpuOf.at(name), std::move(ops));
    }
    WorkloadFile::Workload w;
    w.format = "nccl-log, every process";
    w.name = files.front().first;
    w.graph = trace.Assemble();
    w.gpus = nGpus;
    w.perGpu = true;
    if (empty > 0)
    {
        w.notes.push_back(std::to_string(empty) + " calls of count 0 left out");
    }
    return w;
}

} // namespace ns3
