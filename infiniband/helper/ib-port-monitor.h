/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_PORT_MONITOR_H
#define IB_PORT_MONITOR_H

#include "ns3/ib-net-device.h"
#include "ns3/nstime.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class IbFabricHelper;
class PartitionExchange;

/**
 * \ingroup infiniband
 * \brief Per-port and per-VL counters of an IB fabric over an interval, named as perfquery and
 * ibdiagnet name them (IBTA PortCounters / PortVLXmitWait; shared/reference/infiniband.md 4-5),
 * plus the split of waiting time that hardware does not give: waiting for credits vs losing
 * arbitration.
 *
 * Start() and Stop() bound the interval (by default: time 0 and the moment the CSV is
 * written). For each port one row with vl "all" and one per data VL:
 *
 * - PortXmitData, PortRcvData: data-packet octets from the LRH through the ICRC (VCRC and
 *   framing excluded, link packets excluded), divided by 4, as the hardware counters;
 * - PortXmitPkts, PortRcvPkts: data packets;
 * - PortXmitWait: on the "all" row, the time the port had a data packet queued while none was
 *   on the wire (the hardware's definition: "had data to transmit but no data was sent"); on
 *   a VL row, that VL's time with a packet it could not send (PortVLXmitWait); in ticks of
 *   1 ns (hardware counts a multiple of the symbol time, infiniband.md 4);
 * - credit_wait_ns: time the VL's head packet lacked credits (summed over VLs on "all");
 * - arbitration_wait_ns: time the VL had credits for its head packet while the port sent
 *   another VL's packet or a flow-control packet;
 * - utilisation: wire time of the data packets sent (framing and VCRC included) over the
 *   interval.
 */
class IbPortMonitor
{
  public:
    /** One CSV row. */
    struct Row
    {
        std::string port; //!< "<node>-<port>", as the pcap file names
        int vl;           //!< data VL, or -1 for the whole port
        uint64_t xmitData;
        uint64_t rcvData;
        uint64_t xmitPkts;
        uint64_t rcvPkts;
        Time xmitWait;
        Time creditWait;
        Time arbitrationWait;
        double utilisation;
    };

    IbPortMonitor();
    /// Watch every port of a built fabric.
    void Install(const IbFabricHelper& fabric);
    /// Begin the interval now (counters are taken relative to this moment).
    void Start();
    /// End the interval now (later rows and CSVs report up to this moment).
    void Stop();
    /// The interval's length so far.
    Time GetInterval() const;
    /**
     * After a split run (docs/distributed.md): rank 0 gets the counters of every process's own
     * ports, so that its rows and CSV are those of one process. Stops the interval. Nothing
     * when `exchange` is nullptr.
     */
    void MergeAcross(PartitionExchange* exchange);
    /// The rows for the interval so far.
    std::vector<Row> GetRows() const;
    void WriteCsv(std::ostream& os) const;
    /// Write the CSV to a file atomically; throws InputError naming it if that fails.
    void WriteCsv(const std::string& path) const;

  private:
    /** Counters of one port and VL at one moment. */
    struct Snapshot
    {
        uint64_t txBytes;
        uint64_t rxBytes;
        uint64_t txPkts;
        uint64_t rxPkts;
        Time txTime;
        Time creditWait;
        Time arbitrationWait;
    };

    /** Every port's counters at one moment. */
    struct State
    {
        Time at;
        std::vector<std::vector<Snapshot>> vls; //!< per port, per data VL
        std::vector<Time> xmitWait;             //!< per port: PortXmitWait
    };

    State Take() const;
    /// Port `i`'s counters in `s` as text (integers), and back.
    static void WritePort(std::ostream& os, const State& s, uint32_t i);
    static void ReadPort(std::istream& is, State& s, uint32_t i);

    std::vector<Ptr<IbNetDevice>> m_ports;
    std::vector<std::string> m_names;
    State m_start;
    State m_stop;
    bool m_stopped{false};
};

} // namespace ns3

#endif /* IB_PORT_MONITOR_H */
