/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tests-sweep.h"

#include "ns3/bus-bandwidth.h"
#include "ns3/progress-reporter.h"
#include "ns3/simulator.h"

#include <memory>

namespace ns3
{

namespace
{
bool
SplitsOverRanks(CollectiveOp op)
{
    return op == CollectiveOp::ALL_GATHER || op == CollectiveOp::REDUCE_SCATTER ||
           op == CollectiveOp::ALL_TO_ALL;
}
} // namespace

NcclTestsSweep::Row
NcclTestsSweep::Shape(const Options& options, uint32_t nRanks, uint64_t requestedBytes)
{
    Row row;
    const uint64_t elements = requestedBytes / options.elementSize;
    row.count = SplitsOverRanks(options.op) ? elements / (ALIGN * nRanks) * ALIGN : elements;
    row.perRankBytes = row.count * options.elementSize;
    row.sizeBytes = BusBandwidth::SizeBytes(options.op, nRanks, row.perRankBytes);
    return row;
}

NcclCommunicator::Request
NcclTestsSweep::MakeRequest(const Options& options, const Row& row)
{
    NcclCommunicator::Request r;
    r.op = options.op;
    r.bytes = row.perRankBytes;
    r.elementSize = options.elementSize;
    r.root = options.root;
    r.forceAlgorithm = options.forceAlgorithm;
    r.forceProtocol = options.forceProtocol;
    r.algorithm = options.algorithm;
    r.protocol = options.protocol;
    return r;
}

double
NcclTestsSweep::TunerUs(const NcclCommunicator& comm, const Options& options, Row& row)
{
    const auto [algo, proto] = comm.Choose(MakeRequest(options, row));
    row.algorithm = algo;
    row.protocol = proto;
    const NcclTuner::Estimate e = comm.GetTuner().Predict(options.op, row.sizeBytes, algo, proto);
    return e.available ? e.timeUs : -1;
}

std::vector<NcclTestsSweep::Row>
NcclTestsSweep::Analytical(const NcclCommunicator& comm,
                           const Options& options,
                           const std::vector<uint64_t>& sizes)
{
    std::vector<Row> rows;
    for (uint64_t size : sizes)
    {
        Row row = Shape(options, comm.GetNRanks(), size);
        if (row.count == 0)
        {
            continue;
        }
        row.tunerUs = TunerUs(comm, options, row);
        row.channels = comm.GetNChannels();
        row.timeUs = row.tunerUs;
        rows.push_back(row);
    }
    return rows;
}

std::vector<NcclTestsSweep::Row>
NcclTestsSweep::Packet(NcclCommunicator& comm,
                       const Options& options,
                       const std::vector<uint64_t>& sizes,
                       Time stop,
                       bool progress)
{
    std::vector<Row> rows;
    double expectedUs = 0;
    for (uint64_t size : sizes)
    {
        Row row = Shape(options, comm.GetNRanks(), size);
        if (row.count > 0)
        {
            row.tunerUs = TunerUs(comm, options, row);
            expectedUs += std::max(0.0, row.tunerUs);
            rows.push_back(row);
        }
    }
    size_t next = 0;
    // Each collective starts when the previous one finished, as nccl-tests' sizes do.
    std::function<void()> startNext = [&]() {
        if (next == rows.size())
        {
            Simulator::Stop(); // idle retransmission timers would run the clock on
            return;
        }
        comm.Start(MakeRequest(options, rows[next]),
                   NcclCommunicator::DoneCallback([&](const NcclCommunicator::Result& r) {
                       Row& row = rows[next];
                       row.algorithm = r.algorithm;
                       row.protocol = r.protocol;
                       row.channels = r.nChannels;
                       row.timeUs = (r.end - r.start).GetSeconds() * 1e6;
                       ++next;
                       Simulator::ScheduleNow(startNext);
                   }));
    };
    Simulator::ScheduleNow(startNext);
    if (stop.IsStrictlyPositive())
    {
        Simulator::Stop(stop - Simulator::Now());
    }
    std::unique_ptr<ProgressReporter> reporter;
    if (progress)
    {
        // The tuner's times are a fair estimate of the end for % done and ETA.
        reporter = std::make_unique<ProgressReporter>(
            Simulator::Now() + Time::FromDouble(expectedUs, Time::US),
            [&]() { return next < rows.size() && !Simulator::IsFinished(); });
        reporter->Start();
    }
    Simulator::Run();
    if (reporter)
    {
        reporter->Stop();
    }
    return rows;
}

double
NcclTestsSweep::AlgBw(const Row& row)
{
    return row.timeUs > 0 ? BusBandwidth::AlgBw(row.sizeBytes, row.timeUs / 1e6) : 0;
}

double
NcclTestsSweep::BusBw(const Row& row, CollectiveOp op, uint32_t nRanks)
{
    return AlgBw(row) * BusBandwidth::Factor(op, nRanks);
}

int32_t
NcclTestsSweep::RootColumn(const Options& options)
{
    const bool rooted = options.op == CollectiveOp::BROADCAST || options.op == CollectiveOp::REDUCE;
    return rooted ? static_cast<int32_t>(options.root) : -1;
}

std::string
NcclTestsSweep::RedopColumn(const Options& options)
{
    return CollectiveOpReduces(options.op) ? options.redop : "none";
}

void
NcclTestsSweep::PrintHeader(FILE* out)
{
    std::fprintf(out,
                 "# %10s %12s %8s %6s %6s %10s %7s %7s %13s %10s\n",
                 "size",
                 "count",
                 "type",
                 "redop",
                 "root",
                 "time",
                 "algbw",
                 "busbw",
                 "algo/proto",
                 "tuner");
    std::fprintf(out,
                 "# %10s %12s %8s %6s %6s %10s %7s %7s %13s %10s\n",
                 "(B)",
                 "(elements)",
                 "",
                 "",
                 "",
                 "(us)",
                 "(GB/s)",
                 "(GB/s)",
                 "",
                 "(us)");
}

void
NcclTestsSweep::PrintRow(FILE* out, const Row& row, const Options& options, uint32_t nRanks)
{
    std::fprintf(out,
                 "  %10llu %12llu %8s %6s %6d ",
                 static_cast<unsigned long long>(row.sizeBytes),
                 static_cast<unsigned long long>(row.count),
                 options.type.c_str(),
                 RedopColumn(options).c_str(),
                 RootColumn(options));
    const std::string used =
        (options.op == CollectiveOp::ALL_TO_ALL || options.op == CollectiveOp::SEND_RECV
             ? std::string("P2P")
             : NcclAlgorithmName(row.algorithm)) +
        "/" + NcclProtocolName(row.protocol);
    if (row.timeUs < 0)
    {
        std::fprintf(out, "%10s   (not finished by the end of the run)\n", "-");
        return;
    }
    std::fprintf(out,
                 "%10.2f %7.2f %7.2f %13s ",
                 row.timeUs,
                 AlgBw(row),
                 BusBw(row, options.op, nRanks),
                 used.c_str());
    if (row.tunerUs < 0)
    {
        std::fprintf(out, "%10s\n", "-");
    }
    else
    {
        std::fprintf(out, "%10.2f\n", row.tunerUs);
    }
}

nlohmann::json
NcclTestsSweep::ToJson(const Row& row, const Options& options, uint32_t nRanks)
{
    nlohmann::json j = {{"op", CollectiveOpName(options.op)},
                        {"size_bytes", row.sizeBytes},
                        {"count", row.count},
                        {"type", options.type},
                        {"redop", RedopColumn(options)},
                        {"root", RootColumn(options)},
                        {"ranks", nRanks},
                        {"algorithm", NcclAlgorithmName(row.algorithm)},
                        {"protocol", NcclProtocolName(row.protocol)},
                        {"channels", row.channels},
                        {"time_us", nullptr},
                        {"tuner_time_us", nullptr}};
    if (row.timeUs >= 0)
    {
        j["time_us"] = row.timeUs;
        j["algbw_GBps"] = AlgBw(row);
        j["busbw_GBps"] = BusBw(row, options.op, nRanks);
    }
    if (row.tunerUs >= 0)
    {
        j["tuner_time_us"] = row.tunerUs;
        j["tuner_busbw_GBps"] =
            BusBandwidth::BusBw(options.op, nRanks, row.sizeBytes, row.tunerUs / 1e6);
    }
    return j;
}

} // namespace ns3
