/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-table.h"

#include "ns3/alpha-beta-model.h"

namespace ns3
{

nlohmann::json
CollectiveTable::ToJson(const CollectiveResult& r, double boundSeconds)
{
    nlohmann::json c = {{"op", r.op},
                        {"algo", r.algo},
                        {"bytes", r.bytes},
                        {"count", r.bytes / ELEMENT_BYTES},
                        {"type", "float"},
                        {"ranks", r.ranks},
                        {"start_us", r.start.GetNanoSeconds() / 1e3},
                        {"bound_us", boundSeconds * 1e6},
                        {"time_us", nullptr}};
    if (!r.end.IsZero())
    {
        const double t = (r.end - r.start).GetSeconds();
        const double algbw = r.bytes / t / 1e9;
        c["time_us"] = t * 1e6;
        c["algbw_GBps"] = algbw;
        c["busbw_GBps"] = algbw * AlphaBetaModel::AllReduceBusFactor(r.ranks);
        c["efficiency"] = boundSeconds / t;
    }
    return c;
}

void
CollectiveTable::PrintHeader(FILE* out)
{
    std::fprintf(out,
                 "# %12s %12s %6s %6s %10s %8s %8s %10s %6s\n",
                 "size",
                 "count",
                 "type",
                 "redop",
                 "time",
                 "algbw",
                 "busbw",
                 "bound",
                 "eff");
    std::fprintf(out,
                 "# %12s %12s %6s %6s %10s %8s %8s %10s %6s\n",
                 "(B)",
                 "(elements)",
                 "",
                 "",
                 "(us)",
                 "(GB/s)",
                 "(GB/s)",
                 "(us)",
                 "");
}

void
CollectiveTable::PrintRow(FILE* out, const CollectiveResult& r, double boundSeconds)
{
    const nlohmann::json c = ToJson(r, boundSeconds);
    std::fprintf(out,
                 "  %12llu %12llu %6s %6s ",
                 static_cast<unsigned long long>(r.bytes),
                 static_cast<unsigned long long>(r.bytes / ELEMENT_BYTES),
                 "float",
                 "sum");
    if (c["time_us"].is_null())
    {
        std::fprintf(out, "%10s   (not finished by the end of the run)\n", "-");
        return;
    }
    std::fprintf(out,
                 "%10.1f %8.2f %8.2f %10.1f %5.1f%%\n",
                 c["time_us"].get<double>(),
                 c["algbw_GBps"].get<double>(),
                 c["busbw_GBps"].get<double>(),
                 boundSeconds * 1e6,
                 100.0 * c["efficiency"].get<double>());
}

} // namespace ns3
