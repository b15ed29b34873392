/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Executes a CollectiveSchedule on tagged bytes and checks the result against what the
 * operation must produce, written here from the operations' definitions (NCCL's API
 * documentation), not from the schedule builders.
 *
 * Every byte of every rank's data space carries a tag: the position of the input byte it
 * came from and the set of ranks whose inputs were summed into it (a bit mask; the
 * reduction is the union of these sets). Rank r's input byte at position p starts as
 * {p, {r}}; bytes outside its input start empty. A COPY overwrites the receiver's bytes; a
 * REDUCE or REDUCE_COPY requires the receiver's byte to come from the same input position
 * and from a disjoint set of ranks (no rank counted twice) and unites the sets. A transfer
 * of step t reads the sender's bytes as they were after step t-1; sending an empty byte is
 * an error. At the end every rank's output must hold exactly what the operation defines.
 */
#ifndef SCHEDULE_EXECUTOR_H
#define SCHEDULE_EXECUTOR_H

#include "ns3/collective-schedule.h"

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace schedule_executor
{

using ns3::CollectiveOp;
using ns3::CollectiveSchedule;

struct Tag
{
    int64_t origin{-1}; //!< input position the byte came from; -1 = empty
    uint64_t ranks{0};  //!< ranks whose inputs were summed into it

    bool operator==(const Tag& o) const
    {
        return origin == o.origin && ranks == o.ranks;
    }
};

/// The data spaces after a run, or the first error.
struct Run
{
    std::string error; //!< empty when the schedule ran without a fault
    std::vector<std::vector<Tag>> data;
};

inline std::string
Describe(const CollectiveSchedule::Transfer& t)
{
    std::ostringstream os;
    os << "step " << t.step << " ch " << t.channel << " " << t.src << " -> " << t.dst << " ["
       << t.srcOffset << ", +" << t.bytes << ") -> [" << t.dstOffset << ")";
    return os.str();
}

/// Execute the schedule step by step on tagged bytes.
inline Run
Execute(const CollectiveSchedule& s)
{
    const uint32_t n = s.GetNRanks();
    Run run;
    run.data.assign(n, std::vector<Tag>(s.GetSpaceBytes()));
    for (uint32_t r = 0; r < n; ++r)
    {
        const CollectiveSchedule::Region in = s.GetInputRegion(r);
        for (uint64_t p = in.offset; p < in.offset + in.bytes; ++p)
        {
            run.data[r][p] = {static_cast<int64_t>(p), uint64_t(1) << r};
        }
    }
    std::map<uint32_t, std::vector<CollectiveSchedule::Transfer>> bySteps;
    for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
    {
        bySteps[t.step].push_back(t);
    }
    // The step of the last copy into each byte, to find two copies in one step.
    std::vector<std::vector<uint32_t>> copiedAt(
        n,
        std::vector<uint32_t>(s.GetSpaceBytes(), UINT32_MAX));
    for (const auto& [step, transfers] : bySteps)
    {
        // Read every payload before any write of the step.
        std::vector<std::vector<Tag>> payloads;
        for (const CollectiveSchedule::Transfer& t : transfers)
        {
            const auto& src = run.data[t.src];
            payloads.emplace_back(src.begin() + t.srcOffset, src.begin() + t.srcOffset + t.bytes);
            for (const Tag& tag : payloads.back())
            {
                if (tag.origin < 0)
                {
                    run.error = "sends bytes it does not have: " + Describe(t);
                    return run;
                }
            }
        }
        for (size_t i = 0; i < transfers.size(); ++i)
        {
            const CollectiveSchedule::Transfer& t = transfers[i];
            auto& dst = run.data[t.dst];
            for (uint64_t k = 0; k < t.bytes; ++k)
            {
                Tag& to = dst[t.dstOffset + k];
                const Tag& from = payloads[i][k];
                if (t.action == CollectiveSchedule::RecvAction::COPY)
                {
                    if (copiedAt[t.dst][t.dstOffset + k] == step)
                    {
                        run.error = "two copies into one byte in one step: " + Describe(t);
                        return run;
                    }
                    copiedAt[t.dst][t.dstOffset + k] = step;
                    to = from;
                }
                else if (to.origin != from.origin)
                {
                    run.error = "reduces bytes of different positions: " + Describe(t);
                    return run;
                }
                else if (to.ranks & from.ranks)
                {
                    run.error = "counts a rank twice: " + Describe(t);
                    return run;
                }
                else
                {
                    to.ranks |= from.ranks;
                }
            }
        }
    }
    return run;
}

/**
 * What the operation leaves in rank r's output byte at position p (p inside the output
 * region); sendRecvShift: rank r receives from r - shift.
 */
inline Tag
Expected(const CollectiveSchedule& s, uint32_t r, uint64_t p, uint32_t sendRecvShift = 1)
{
    const uint32_t n = s.GetNRanks();
    const uint64_t S = s.GetBytes();
    const uint64_t all = n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    const int64_t pos = static_cast<int64_t>(p);
    switch (s.GetOp())
    {
    case CollectiveOp::ALL_REDUCE:
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::REDUCE:
        return {pos, all};
    case CollectiveOp::ALL_GATHER:
        return {pos, uint64_t(1) << (p / S)};
    case CollectiveOp::BROADCAST:
        return {pos, uint64_t(1) << s.GetRoot()};
    case CollectiveOp::ALL_TO_ALL: {
        const uint64_t from = (p - n * S) / S; // output block i came from rank i ...
        const uint64_t k = (p - n * S) % S;    // ... out of its input block r
        return {static_cast<int64_t>(r * S + k), uint64_t(1) << from};
    }
    case CollectiveOp::SEND_RECV:
        return {static_cast<int64_t>(p - S), uint64_t(1) << ((r + n - sendRecvShift % n) % n)};
    }
    return {};
}

/// Run the schedule and compare every output byte; returns "" or the first difference.
inline std::string
Check(const CollectiveSchedule& s, uint32_t sendRecvShift = 1)
{
    const Run run = Execute(s);
    if (!run.error.empty())
    {
        return run.error;
    }
    for (uint32_t r = 0; r < s.GetNRanks(); ++r)
    {
        const CollectiveSchedule::Region out = s.GetOutputRegion(r);
        for (uint64_t p = out.offset; p < out.offset + out.bytes; ++p)
        {
            const Tag want = Expected(s, r, p, sendRecvShift);
            const Tag got = run.data[r][p];
            if (!(got == want))
            {
                std::ostringstream os;
                os << "rank " << r << " byte " << p << ": got {" << got.origin << ", 0x" << std::hex
                   << got.ranks << std::dec << "}, want {" << want.origin << ", 0x" << std::hex
                   << want.ranks << "}";
                return os.str();
            }
        }
    }
    return "";
}

} // namespace schedule_executor

#endif /* SCHEDULE_EXECUTOR_H */
