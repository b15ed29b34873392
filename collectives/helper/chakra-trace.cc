/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "chakra-trace.h"

#include "proto-wire.h"

#include "ns3/input-error.h"
#include "ns3/json-reader.h"
#include "ns3/per-rank-trace.h"

#include <fstream>
#include <map>
#include <queue>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

constexpr const char* DOC = "docs/workload-format.md";

/// The communicator of pg_name "" and "0": every rank (ASTRA-sim's default group).
const std::string WORLD = "world";

/// A file's contents, or an InputError.
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path + ": cannot be read", "a Chakra execution trace");
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// An AttributeProto: its name and, of its value, an integer or a string.
ChakraTrace::Attribute
ParseAttribute(std::string_view bytes, const std::string& where, size_t offset)
{
    ChakraTrace::Attribute a;
    ProtoWire w(bytes, where, offset);
    uint32_t field;
    ProtoWire::WireType type;
    while (w.Next(field, type))
    {
        // et_def.proto AttributeProto: name 1, then the value's oneof: int32 7, int64 9,
        // uint32 11, uint64 13 and bool 27 (varints), sint32 15 and sint64 17 (zigzag),
        // fixed32 19, fixed64 21, sfixed32 23, sfixed64 25, string 29.
        if (field == 1 && type == ProtoWire::LEN)
        {
            a.name = std::string(w.Bytes());
        }
        else if ((field == 7 || field == 9 || field == 11 || field == 13 || field == 27) &&
                 type == ProtoWire::VARINT)
        {
            a.isInteger = true;
            const uint64_t v = w.Varint();
            a.integer = field == 7 ? static_cast<int32_t>(v) : static_cast<int64_t>(v);
        }
        else if ((field == 15 || field == 17) && type == ProtoWire::VARINT)
        {
            a.isInteger = true;
            a.integer = ProtoWire::Unzigzag(w.Varint());
        }
        else if ((field == 19 || field == 23) && type == ProtoWire::I32)
        {
            a.isInteger = true;
            const uint32_t v = w.Fixed32();
            a.integer = field == 23 ? static_cast<int32_t>(v) : static_cast<int64_t>(v);
        }
        else if ((field == 21 || field == 25) && type == ProtoWire::I64)
        {
            a.isInteger = true;
            a.integer = static_cast<int64_t>(w.Fixed64());
        }
        else if (field == 29 && type == ProtoWire::LEN)
        {
            a.isString = true;
            a.text = std::string(w.Bytes());
        }
        else
        {
            w.Skip(type); // doc_string, floating point, lists: nothing read here needs them
        }
    }
    return a;
}

/// A Node message.
ChakraTrace::Node
ParseNode(std::string_view bytes, const std::string& file, size_t offset)
{
    ChakraTrace::Node n;
    n.offset = offset;
    ProtoWire w(bytes, file, offset);
    uint32_t field;
    ProtoWire::WireType type;
    while (w.Next(field, type))
    {
        // et_def.proto Node: id 1, name 2, type 3, ctrl_deps 4, data_deps 5 (packed or not),
        // duration_micros 7, attr 10.
        if (field == 1 && type == ProtoWire::VARINT)
        {
            n.id = w.Varint();
        }
        else if (field == 2 && type == ProtoWire::LEN)
        {
            n.name = std::string(w.Bytes());
        }
        else if (field == 3 && type == ProtoWire::VARINT)
        {
            n.type = static_cast<uint32_t>(w.Varint());
        }
        else if ((field == 4 || field == 5) && type == ProtoWire::VARINT)
        {
            n.deps.push_back(w.Varint());
        }
        else if ((field == 4 || field == 5) && type == ProtoWire::LEN)
        {
            const size_t at = w.GetOffset();
            ProtoWire packed(w.Bytes(), file, at);
            while (!packed.AtEnd())
            {
                n.deps.push_back(packed.Varint());
            }
        }
        else if (field == 7 && type == ProtoWire::VARINT)
        {
            n.durationMicros = w.Varint();
        }
        else if (field == 10 && type == ProtoWire::LEN)
        {
            const size_t at = w.GetOffset();
            n.attrs.push_back(ParseAttribute(w.Bytes(), file, at));
        }
        else
        {
            w.Skip(type);
        }
    }
    return n;
}

/// A node's place for errors: "t.3.et: node 17 (name)".
std::string
Where(const std::string& file, const ChakraTrace::Node& n)
{
    return file + ": node " + std::to_string(n.id) + (n.name.empty() ? "" : " (" + n.name + ")");
}

/// A node's integer attribute, which it must have.
int64_t
NeedInteger(const ChakraTrace::Node& n, const std::string& attr, const std::string& where)
{
    const ChakraTrace::Attribute* a = n.Find(attr);
    if (!a || !a->isInteger)
    {
        throw InputError(where + ": no integer attribute " + attr,
                         "comm_type and comm_size on a collective, comm_size and comm_dst or "
                         "comm_src on a send or receive (" +
                             std::string(DOC) + ")");
    }
    return a->integer;
}

/// The process groups of a comm-groups file: {"1": [0, 1, 2, 3], ...}.
std::map<std::string, std::vector<uint32_t>>
ReadGroups(const std::string& path, uint32_t ranks)
{
    std::map<std::string, std::vector<uint32_t>> groups;
    if (path.empty())
    {
        return groups;
    }
    std::string text;
    const JsonReader::Json root = JsonReader::Load(path, text, DOC);
    const JsonReader r(path);
    for (const auto& [name, list] : r.Object(root, "$").items())
    {
        const std::string at = "$." + name;
        for (size_t i = 0; i < r.Array(list, at).size(); ++i)
        {
            groups[name].push_back(static_cast<uint32_t>(
                r.Integer(list[i], JsonReader::Index(at, i), 0, int64_t(ranks) - 1)));
        }
        if (groups[name].empty())
        {
            r.Fail(at, "an empty group", "the ranks of the process group");
        }
    }
    return groups;
}

/// One rank's nodes as operations, in dependency order (ties by id).
std::vector<PerRankTrace::Op>
ToOps(const std::vector<ChakraTrace::Node>& nodes,
      const std::string& file,
      uint32_t rank,
      const std::map<std::string, std::vector<uint32_t>>& groups,
      uint32_t nRanks,
      std::map<std::string, uint32_t>& leftOut)
{
    std::map<uint64_t, uint32_t> byId;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (!byId.emplace(nodes[i].id, i).second)
        {
            throw InputError(Where(file, nodes[i]) + ": a second node of id " +
                                 std::to_string(nodes[i].id),
                             "one node per id");
        }
    }
    std::vector<std::vector<uint32_t>> users(nodes.size());
    std::vector<uint32_t> waiting(nodes.size(), 0);
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        for (uint64_t d : std::set<uint64_t>(nodes[i].deps.begin(), nodes[i].deps.end()))
        {
            const auto it = byId.find(d);
            if (it == byId.end())
            {
                throw InputError(Where(file, nodes[i]) + ": depends on node " + std::to_string(d) +
                                     ", which the file does not have",
                                 "dependencies on nodes of the same file");
            }
            users[it->second].push_back(i);
            ++waiting[i];
        }
    }
    std::priority_queue<std::pair<uint64_t, uint32_t>,
                        std::vector<std::pair<uint64_t, uint32_t>>,
                        std::greater<>>
        ready;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (waiting[i] == 0)
        {
            ready.emplace(nodes[i].id, i);
        }
    }
    // What each node stands for among the operations: itself, or (left out) what it waited
    // for.
    std::vector<std::set<uint32_t>> opsOf(nodes.size());
    std::vector<PerRankTrace::Op> ops;
    uint32_t done = 0;
    while (!ready.empty())
    {
        const uint32_t i = ready.top().second;
        ready.pop();
        ++done;
        const ChakraTrace::Node& n = nodes[i];
        const std::string where = Where(file, n);
        std::set<uint32_t> after;
        for (uint64_t d : n.deps)
        {
            const std::set<uint32_t>& s = opsOf[byId.at(d)];
            after.insert(s.begin(), s.end());
        }
        PerRankTrace::Op o;
        o.label = n.name.empty() ? "node " + std::to_string(n.id) : n.name;
        o.where = where;
        o.after.assign(after.begin(), after.end());
        bool keep = true;
        if (n.type == ChakraTrace::COMP_NODE)
        {
            o.seconds = n.durationMicros * 1e-6;
        }
        else if (n.type == ChakraTrace::COMM_COLL_NODE)
        {
            const ChakraTrace::Attribute* cpu = n.Find("is_cpu_op");
            if (cpu && cpu->isInteger && cpu->integer != 0)
            {
                throw InputError(where + ": a collective with is_cpu_op",
                                 "collectives on the GPU (ASTRA-sim refuses them too)");
            }
            const ChakraTrace::Attribute* pg = n.Find("pg_name");
            std::string name = !pg ? "" : pg->isString ? pg->text : std::to_string(pg->integer);
            name = name.empty() || name == "0" ? WORLD : name;
            if (name != WORLD && groups.count(name) == 0)
            {
                throw InputError(where + ": process group \"" + name + "\" is in no comm-groups " +
                                     "file",
                                 "--commGroups=FILE with {\"" + name + "\": [its ranks], ...}");
            }
            const uint64_t n_ = name == WORLD ? nRanks : groups.at(name).size();
            const int64_t type = NeedInteger(n, "comm_type", where);
            const int64_t size = NeedInteger(n, "comm_size", where);
            if (size < 0)
            {
                throw InputError(where + ": comm_size " + std::to_string(size), "a size in bytes");
            }
            const uint64_t bytes = static_cast<uint64_t>(size);
            o.comm = name;
            o.stream = "pg " + name;
            switch (type)
            {
            case ChakraTrace::ALL_REDUCE:
                o.op = CollectiveOp::ALL_REDUCE;
                o.bytes = bytes;
                break;
            case ChakraTrace::ALL_GATHER:
                o.op = CollectiveOp::ALL_GATHER;
                o.bytes = bytes;
                break;
            case ChakraTrace::BROADCAST:
                o.op = CollectiveOp::BROADCAST;
                o.bytes = bytes;
                break;
            case ChakraTrace::REDUCE:
                o.op = CollectiveOp::REDUCE;
                o.bytes = bytes;
                break;
            case ChakraTrace::REDUCE_SCATTER:
                o.op = CollectiveOp::REDUCE_SCATTER;
                o.bytes = (bytes + n_ - 1) / n_;
                break;
            case ChakraTrace::ALL_TO_ALL:
                o.op = CollectiveOp::ALL_TO_ALL;
                o.bytes = (bytes + n_ - 1) / n_;
                break;
            default:
                throw InputError(where + ": comm_type " + std::to_string(type) + " is not modelled",
                                 "ALL_REDUCE (0), REDUCE (1), ALL_GATHER (2), BROADCAST (5), "
                                 "ALL_TO_ALL (6) or REDUCE_SCATTER (7)");
            }
            if (o.bytes == 0)
            {
                keep = false;
                ++leftOut["collectives of 0 bytes"];
            }
        }
        else if (n.type == ChakraTrace::COMM_SEND_NODE || n.type == ChakraTrace::COMM_RECV_NODE)
        {
            o.receive = n.type == ChakraTrace::COMM_RECV_NODE;
            const int64_t peer = NeedInteger(n, o.receive ? "comm_src" : "comm_dst", where);
            const ChakraTrace::Attribute* self = n.Find(o.receive ? "comm_dst" : "comm_src");
            if (peer < 0 || peer >= nRanks || peer == rank ||
                (self && self->isInteger && self->integer != rank))
            {
                throw InputError(where + ": a " + (o.receive ? "receive from " : "send to ") +
                                     std::to_string(peer) + " on rank " + std::to_string(rank),
                                 "another rank of the " + std::to_string(nRanks) +
                                     " traces, and this rank on its own end");
            }
            o.peer = static_cast<int32_t>(peer);
            const int64_t size = NeedInteger(n, "comm_size", where);
            if (size <= 0)
            {
                throw InputError(where + ": comm_size " + std::to_string(size),
                                 "the bytes the transfer moves");
            }
            o.bytes = static_cast<uint64_t>(size);
        }
        else if (n.type <= ChakraTrace::MEM_STORE_NODE)
        {
            keep = false;
            static const char* const KINDS[] = {"invalid nodes",
                                                "metadata nodes",
                                                "memory loads",
                                                "memory stores"};
            ++leftOut[KINDS[n.type]];
        }
        else
        {
            throw InputError(where + ": node type " + std::to_string(n.type),
                             "a NodeType of et_def.proto, 0 to 7");
        }
        if (keep)
        {
            opsOf[i] = {static_cast<uint32_t>(ops.size())};
            ops.push_back(o);
        }
        else
        {
            opsOf[i] = std::move(after);
        }
        for (uint32_t u : users[i])
        {
            if (--waiting[u] == 0)
            {
                ready.emplace(nodes[u].id, u);
            }
        }
    }
    if (done != nodes.size())
    {
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            if (waiting[i] > 0)
            {
                throw InputError(Where(file, nodes[i]) +
                                     ": its dependencies come back to it (a cycle)",
                                 "dependencies that end");
            }
        }
    }
    return ops;
}

} // namespace

const ChakraTrace::Attribute*
ChakraTrace::Node::Find(const std::string& attr) const
{
    for (const Attribute& a : attrs)
    {
        if (a.name == attr)
        {
            return &a;
        }
    }
    return nullptr;
}

std::vector<ChakraTrace::Node>
ChakraTrace::Parse(std::string_view bytes, const std::string& file)
{
    // The file: messages each after its length as a varint (chakra's protolib encodeMessage),
    // a GlobalMetadata first.
    ProtoWire frames(bytes, file);
    std::vector<Node> nodes;
    bool metadata = false;
    while (!frames.AtEnd())
    {
        // A length and that many bytes: the framing is a LEN value's.
        const std::string_view message = frames.Bytes();
        const size_t start = frames.GetOffset() - message.size();
        if (!metadata)
        {
            // GlobalMetadata: read through, so that a file of something else fails here.
            ProtoWire w(message, file, start);
            uint32_t field;
            ProtoWire::WireType type;
            while (w.Next(field, type))
            {
                w.Skip(type);
            }
            metadata = true;
        }
        else
        {
            nodes.push_back(ParseNode(message, file, start));
        }
    }
    if (!metadata)
    {
        throw InputError(file + ": empty", "a Chakra execution trace: a GlobalMetadata first");
    }
    return nodes;
}

bool
ChakraTrace::IsTrace(const std::string& prefix)
{
    return std::ifstream(prefix + ".0.et").good();
}

WorkloadFile::Workload
ChakraTrace::Read(const std::string& prefix, const std::string& commGroups, uint32_t gpusPerNode)
{
    std::vector<std::string> files;
    while (std::ifstream(prefix + "." + std::to_string(files.size()) + ".et").good())
    {
        files.push_back(prefix + "." + std::to_string(files.size()) + ".et");
    }
    if (files.empty())
    {
        throw InputError(prefix + ".0.et: cannot be read",
                         "Chakra traces <prefix>.0.et, <prefix>.1.et, ... one per rank");
    }
    const uint32_t nRanks = files.size();
    const std::map<std::string, std::vector<uint32_t>> groups = ReadGroups(commGroups, nRanks);
    std::map<std::string, uint32_t> leftOut;
    std::vector<std::vector<PerRankTrace::Op>> ops(nRanks);
    std::map<std::string, bool> allToAll; // per group used: whether it runs all-to-alls
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        ops[r] = ToOps(Parse(Slurp(files[r]), files[r]), files[r], r, groups, nRanks, leftOut);
        for (const PerRankTrace::Op& o : ops[r])
        {
            if (!o.comm.empty())
            {
                allToAll[o.comm] = allToAll[o.comm] || o.op == CollectiveOp::ALL_TO_ALL;
            }
        }
    }
    PerRankTrace trace(nRanks);
    for (const auto& [name, a2a] : allToAll)
    {
        PerRankTrace::Communicator c;
        c.name = name;
        if (name == WORLD)
        {
            for (uint32_t r = 0; r < nRanks; ++r)
            {
                c.gpus.push_back(r);
            }
        }
        else
        {
            c.gpus = groups.at(name);
        }
        const bool oneServer =
            std::all_of(c.gpus.begin(), c.gpus.end(), [&c, gpusPerNode](uint32_t g) {
                return g / gpusPerNode == c.gpus[0] / gpusPerNode;
            });
        c.category = oneServer ? StepGraph::Category::TP
                     : a2a     ? StepGraph::Category::EP
                               : StepGraph::Category::DP;
        trace.AddCommunicator(c, commGroups.empty() ? files[0] : commGroups);
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        trace.SetOps(r, std::move(ops[r]));
    }
    WorkloadFile::Workload w;
    w.format = "chakra";
    w.name = prefix.substr(prefix.find_last_of('/') + 1);
    w.graph = trace.Assemble();
    w.gpus = nRanks;
    w.perGpu = true;
    for (const auto& [what, count] : leftOut)
    {
        w.notes.push_back(std::to_string(count) + " " + what + " left out (no time here)");
    }
    return w;
}

} // namespace ns3
