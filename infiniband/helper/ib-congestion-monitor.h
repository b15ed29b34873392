/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_CONGESTION_MONITOR_H
#define IB_CONGESTION_MONITOR_H

#include "ns3/csv-writer.h"
#include "ns3/event-id.h"
#include "ns3/ib-net-device.h"
#include "ns3/nstime.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class IbFabricHelper;
class PartitionExchange;

/**
 * \ingroup infiniband
 * \brief Samples an IB fabric over time: per port and data VL the credits the port may still
 * use, its receive buffer in use and its queued bytes (credits.csv), and the spread of
 * congestion: how many ports waited (PortXmitWait) for at least WaitThreshold of each
 * interval, i.e. had data but could not send it (congestion.csv). In a credit-based fabric
 * congestion spreads backwards from a hotspot as buffers fill (the congestion tree of
 * shared/reference/infiniband.md 5.4); the count of waiting ports over time is its breadth.
 *
 * Sampling costs one event per Interval for the whole fabric, and nothing when not installed.
 * It stops by itself once no port buffers or queues anything and no queue pair has data left,
 * so a simulation without a stop time still ends.
 *
 * In a split run (docs/distributed.md) each process samples its own ports, and no process can
 * tell alone that the whole fabric is idle: sampling goes on until the run ends (which the
 * program decides), and MergeAcross cuts the samples after the first one at which the whole
 * fabric was idle, where one process would have stopped.
 */
class IbCongestionMonitor
{
  public:
    /// One sample of one port's VL.
    struct VlSample
    {
        Time at;
        uint32_t port; //!< index in IbFabricHelper::GetPorts()
        uint8_t vl;
        uint32_t credits;    //!< blocks the port may still send on the VL
        uint32_t bufferUsed; //!< blocks held in its receive buffer for the VL
        uint64_t queued;     //!< bytes waiting in its output queue for the VL
    };

    /// One interval of the whole fabric.
    struct Spread
    {
        Time at;                         //!< the end of the interval
        std::vector<uint32_t> congested; //!< ports that waited >= the threshold
        /// Ports in the longest chain of congested ports, each feeding the next one's node:
        /// how many hops back from its root the congestion tree reached (0: none congested).
        uint32_t depth{0};
    };

    /**
     * \param interval time between samples
     * \param waitThreshold fraction of an interval a port must wait to count as congested
     */
    IbCongestionMonitor(Time interval, double waitThreshold = 0.5);
    ~IbCongestionMonitor();
    IbCongestionMonitor(const IbCongestionMonitor&) = delete;
    IbCongestionMonitor& operator=(const IbCongestionMonitor&) = delete;

    /// Watch every port of a built fabric, sampling from now on until Stop().
    void Install(const IbFabricHelper& fabric);
    /// Stop sampling; a credit log (EnableCreditLog) is closed into place.
    void Stop();

    /**
     * \brief Write each credit sample to \p csv (CreditColumns()) as it is taken instead of
     * keeping it: memory stays flat however long the run (a k=16 fabric holds 12,288 port VLs,
     * 32 B each per interval in memory). GetSamples() is then empty.
     */
    void EnableCreditLog(CsvWriter csv);
    /// The columns of credits.csv.
    static std::vector<std::string> CreditColumns();

    /// The credit samples kept in memory (none with a credit log).
    const std::vector<VlSample>& GetSamples() const;
    const std::vector<Spread>& GetSpread() const;
    /// The largest number of congested ports in one interval.
    uint32_t GetMaxSpread() const;
    /// The deepest congestion tree of one interval (Spread::depth).
    uint32_t GetMaxDepth() const;
    /// The sampling interval.
    Time GetInterval() const;
    /// The wait threshold (fraction of an interval).
    double GetWaitThreshold() const;
    /// A watched port's name ("<node>-<port>").
    const std::string& GetPortName(uint32_t port) const;

    /**
     * After a split run: rank 0 gets every process's samples of the congested ports (the other
     * ranks keep none), and the samples after the first at which the whole fabric was idle
     * are dropped, as one process would not have taken them. Nothing in a run that is not
     * split.
     * \param exchange the processes, or nullptr for partitions emulated in this process
     * \return the time of the last sample kept (Time::Max() when none was dropped)
     */
    Time MergeAcross(PartitionExchange* exchange);

    /// congestion.csv: time_us, congested_ports, depth, ports (names separated by spaces).
    void WriteSpread(std::ostream& os) const;

  private:
    void Sample();
    /// One row of credits.csv.
    void WriteCredit(CsvWriter& csv, const VlSample& s) const;
    /// Spread::depth of a set of congested ports.
    uint32_t TreeDepth(const std::vector<uint32_t>& congested) const;

    Time m_interval;
    double m_threshold;
    std::vector<Ptr<IbNetDevice>> m_ports;
    std::vector<std::string> m_names;
    std::vector<Time> m_lastWait;
    std::vector<uint32_t> m_node;     //!< per port: the node it belongs to
    std::vector<uint32_t> m_peerNode; //!< per port: the node at the link's other end
    std::vector<bool> m_local;        //!< per port: its node runs in this process
    bool m_split{false};              //!< the run is split (docs/distributed.md)
    std::vector<bool> m_busy; //!< per Spread: this process's ports buffered or queued anything
    std::vector<VlSample> m_samples;
    std::optional<CsvWriter> m_creditLog;
    std::vector<Spread> m_spread;
    EventId m_event;
};

} // namespace ns3

#endif /* IB_CONGESTION_MONITOR_H */
