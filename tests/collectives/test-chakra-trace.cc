/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ChakraTrace and ProtoWire: Chakra execution traces read from bytes written by hand after
 * protobuf's wire format (protobuf.dev "Encoding") and et_def.proto's field numbers: a node's
 * id, name, type, packed and unpacked dependencies, duration and attributes of every integer
 * kind and strings; unknown fields skipped; a file cut short named by its byte. Two ranks'
 * files become one step: nodes in dependency order, a left-out memory node's dependents
 * waiting for what it waited for, the world's collective one operation on both GPUs.
 */

#include "input-error-of.h"

#include "ns3/chakra-trace.h"
#include "ns3/proto-wire.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

std::string
Varint(uint64_t v)
{
    std::string s;
    do
    {
        s += static_cast<char>((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return s;
}

std::string
Key(uint32_t field, uint32_t wire)
{
    return Varint(uint64_t(field) << 3 | wire);
}

std::string
Len(uint32_t field, const std::string& bytes)
{
    return Key(field, 2) + Varint(bytes.size()) + bytes;
}

std::string
IntAttr(const std::string& name, uint32_t field, uint64_t raw)
{
    return Len(10, Len(1, name) + Key(field, 0) + Varint(raw));
}

std::string
StringAttr(const std::string& name, const std::string& value)
{
    return Len(10, Len(1, name) + Len(29, value));
}

/// A node message: id, name, type, duration, data dependencies (packed) and attributes.
std::string
NodeBytes(uint64_t id,
          const std::string& name,
          uint32_t type,
          uint64_t micros,
          const std::vector<uint64_t>& deps,
          const std::string& attrs = "")
{
    std::string packed;
    for (uint64_t d : deps)
    {
        packed += Varint(d);
    }
    return Key(1, 0) + Varint(id) + Len(2, name) + Key(3, 0) + Varint(type) + Key(7, 0) +
           Varint(micros) + (deps.empty() ? "" : Len(5, packed)) + attrs;
}

/// A file: GlobalMetadata, then the nodes, each after its length.
std::string
File(const std::vector<std::string>& nodes)
{
    std::string s = Varint(5) + Len(1, "1.0");
    for (const std::string& n : nodes)
    {
        s += Varint(n.size()) + n;
    }
    return s;
}

} // namespace

TEST(ProtoWire, VarintsZigzagAndFixedValues)
{
    const std::string bytes = Key(1, 0) + Varint(300) + Key(2, 5) +
                              std::string("\x01\x00\x00\x80", 4) + Key(3, 1) +
                              std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    ProtoWire w(bytes, "t");
    uint32_t field;
    ProtoWire::WireType type;
    ASSERT_TRUE(w.Next(field, type));
    EXPECT_EQ(field, 1u);
    EXPECT_EQ(type, ProtoWire::VARINT);
    EXPECT_EQ(w.Varint(), 300u);
    ASSERT_TRUE(w.Next(field, type));
    EXPECT_EQ(type, ProtoWire::I32);
    EXPECT_EQ(w.Fixed32(), 0x80000001u);
    ASSERT_TRUE(w.Next(field, type));
    EXPECT_EQ(w.Fixed64(), ~uint64_t(0));
    EXPECT_FALSE(w.Next(field, type));
    EXPECT_EQ(ProtoWire::Unzigzag(0), 0);
    EXPECT_EQ(ProtoWire::Unzigzag(1), -1);
    EXPECT_EQ(ProtoWire::Unzigzag(2), 1);
    EXPECT_EQ(ProtoWire::Unzigzag(3), -2);
    // Cut short: the place is the byte where the value ends early.
    const std::string shortBytes = Key(1, 2) + Varint(10) + "abc"; // the reader keeps a view
    ProtoWire cut(shortBytes, "f.et", 100);
    ASSERT_TRUE(cut.Next(field, type));
    EXPECT_NE(std::string(InputErrorOf([&cut]() { cut.Bytes(); }).what())
                  .find("f.et: byte 102: a length of 10 bytes where 3 are left"),
              std::string::npos);
}

TEST(ChakraTrace, ANodesFieldsAndAttributes)
{
    const std::string attrs = IntAttr("comm_type", 9, 0) + IntAttr("comm_size", 9, 1048576) +
                              IntAttr("comm_src", 7, ~uint64_t(0)) + // int32 -1: ten bytes
                              IntAttr("is_cpu_op", 27, 1) + IntAttr("delta", 17, 3) +
                              StringAttr("pg_name", "3");
    // Unpacked control dependency 5 and an unknown field (99, I32) beside the packed 3, 300.
    const std::string node = NodeBytes(7, "ar", 7, 150, {3, 300}, attrs) + Key(4, 0) + Varint(5) +
                             Key(99, 5) + std::string(4, '\0');
    const std::vector<ChakraTrace::Node> nodes = ChakraTrace::Parse(File({node}), "t.0.et");
    ASSERT_EQ(nodes.size(), 1u);
    const ChakraTrace::Node& n = nodes[0];
    EXPECT_EQ(n.id, 7u);
    EXPECT_EQ(n.name, "ar");
    EXPECT_EQ(n.type, ChakraTrace::COMM_COLL_NODE);
    EXPECT_EQ(n.durationMicros, 150u);
    EXPECT_EQ(n.deps, (std::vector<uint64_t>{3, 300, 5}));
    ASSERT_NE(n.Find("comm_size"), nullptr);
    EXPECT_EQ(n.Find("comm_size")->integer, 1048576);
    EXPECT_EQ(n.Find("comm_src")->integer, -1);
    EXPECT_EQ(n.Find("is_cpu_op")->integer, 1);
    EXPECT_EQ(n.Find("delta")->integer, -2);
    EXPECT_TRUE(n.Find("pg_name")->isString);
    EXPECT_EQ(n.Find("pg_name")->text, "3");
    EXPECT_EQ(n.Find("comm_dst"), nullptr);
}

TEST(ChakraTrace, WhatIsNotATraceIsNamedByItsByte)
{
    const std::string file = File({NodeBytes(1, "fwd", 4, 10, {})});
    EXPECT_NE(std::string(InputErrorOf([&file]() {
                              ChakraTrace::Parse(file.substr(0, file.size() - 2), "t.1.et");
                          }).what())
                  .find("t.1.et: byte "),
              std::string::npos);
    EXPECT_NE(std::string(InputErrorOf([]() { ChakraTrace::Parse("", "e.et"); }).what())
                  .find("e.et: empty"),
              std::string::npos);
    // Text is not a trace: its first byte is read as a length running past the end.
    EXPECT_NE(
        std::string(InputErrorOf([]() { ChakraTrace::Parse("{\"ops\": []}\n", "j.et"); }).what())
            .find("j.et: byte"),
        std::string::npos);
}

TEST(ChakraTrace, TwoRanksBecomeOneStep)
{
    // Each rank, listed out of order: forward (node 9, 100 us), an all-reduce on the world
    // (node 5, after 9), a memory store (node 3, after 5; left out) and the optimiser (node 4,
    // after 3, so after the all-reduce).
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("chakra-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string coll = IntAttr("comm_type", 9, 0) + IntAttr("comm_size", 9, 4096);
    for (int r = 0; r < 2; ++r)
    {
        std::ofstream((dir / ("t." + std::to_string(r) + ".et")).string(), std::ios::binary)
            << File({NodeBytes(4, "opt", 4, 20, {3}),
                     NodeBytes(5, "ar", 7, 0, {9}, coll),
                     NodeBytes(3, "store", 3, 0, {5}),
                     NodeBytes(9, "fwd", 4, 100, {})});
    }
    const std::string prefix = (dir / "t").string();
    ASSERT_TRUE(ChakraTrace::IsTrace(prefix));
    const WorkloadFile::Workload w = ChakraTrace::Read(prefix, "", 8);
    std::filesystem::remove_all(dir);
    EXPECT_TRUE(w.perGpu);
    EXPECT_EQ(w.gpus, 2u);
    EXPECT_EQ(w.format, "chakra");
    ASSERT_EQ(w.notes.size(), 1u);
    EXPECT_EQ(w.notes[0], "2 memory stores left out (no time here)");
    const StepGraph& s = w.graph;
    EXPECT_EQ(s.GetNRanks(), 2u);
    ASSERT_EQ(s.GetCommunicators().size(), 1u);
    EXPECT_EQ(s.GetCommunicators()[0].name, "world");
    EXPECT_EQ(s.GetCommunicators()[0].category, StepGraph::Category::TP) << "one server of 8";
    ASSERT_EQ(s.GetOps().size(), 5u); // fwd x 2, the all-reduce, opt x 2
    for (const StepGraph::Op& o : s.GetOps())
    {
        if (o.label == "ar")
        {
            EXPECT_EQ(o.ranks, (std::vector<uint32_t>{0, 1}));
            EXPECT_EQ(o.bytes, 4096u);
            EXPECT_EQ(o.deps.size(), 2u);
        }
        if (o.label == "opt")
        {
            ASSERT_EQ(o.deps.size(), 1u);
            EXPECT_EQ(s.GetOps()[o.deps[0]].label, "ar") << "through the store left out";
            EXPECT_DOUBLE_EQ(o.seconds, 20e-6);
        }
    }
    EXPECT_NE(std::string(InputErrorOf([&prefix]() { ChakraTrace::Read(prefix, "", 8); }).what())
                  .find("t.0.et: cannot be read"),
              std::string::npos);
}

TEST(ChakraTrace, UnknownNodesAndTypesAreNamed)
{
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("chakra-bad-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string prefix = (dir / "t").string();
    const auto errorOf = [&prefix](const std::vector<std::string>& nodes) {
        std::ofstream(prefix + ".0.et", std::ios::binary) << File(nodes);
        return std::string(InputErrorOf([&prefix]() { ChakraTrace::Read(prefix, "", 8); }).what());
    };
    EXPECT_NE(errorOf({NodeBytes(1, "fwd", 4, 10, {7})})
                  .find("t.0.et: node 1 (fwd): depends on node 7, which the file does not have"),
              std::string::npos);
    EXPECT_NE(errorOf({NodeBytes(2, "odd", 12, 10, {})}).find("t.0.et: node 2 (odd): node type 12"),
              std::string::npos);
    EXPECT_NE(errorOf({NodeBytes(3, "a", 4, 1, {4}), NodeBytes(4, "b", 4, 1, {3})})
                  .find("its dependencies come back to it (a cycle)"),
              std::string::npos);
    EXPECT_NE(
        errorOf(
            {NodeBytes(5, "g", 7, 0, {}, IntAttr("comm_type", 9, 3) + IntAttr("comm_size", 9, 8))})
            .find("t.0.et: node 5 (g): comm_type 3 is not modelled"),
        std::string::npos);
    EXPECT_NE(errorOf({NodeBytes(6, "s", 7, 0, {}, IntAttr("comm_type", 9, 0))})
                  .find("t.0.et: node 6 (s): no integer attribute comm_size"),
              std::string::npos);
    std::filesystem::remove_all(dir);
}
