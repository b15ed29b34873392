/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef INCAST_EXPERIMENT_H
#define INCAST_EXPERIMENT_H

#include "roce-experiment.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief An N:1 incast through one switch: senders h1..hN each write one message to the
 * receiver r at time 0, one RC queue pair each. It measures what PFC does to it: the receiver's
 * goodput against the payload line rate, each sender's paused time, the switch buffer's peak,
 * drops and retransmissions; it samples every switch port and every sender's port
 * (queues.csv), and reports a table, summary.json's blocks and a plot of the queues and pauses
 * (pfc-incast.gp, .png).
 *
 * Host i-1 is hi and the receiver is host N; switch port i faces host i.
 */
class IncastExperiment
{
  public:
    /// The incast.
    struct Config
    {
        uint32_t senders{15};                 //!< N
        uint64_t flowSize{16ULL << 20};       //!< Bytes each sender writes.
        DataRate linkRate{"100Gbps"};         //!< Rate of every link.
        Time linkDelay{MicroSeconds(1)};      //!< Propagation delay of every link.
        Time sampleInterval{MicroSeconds(1)}; //!< Between rows of queues.csv.
    };

    /**
     * The star: N senders and the receiver on one switch "sw".
     * \param config the incast
     * \return the topology
     */
    static FabricTopology Topology(const Config& config);

    /**
     * Connect the senders' queue pairs, start the sampler and post the writes at time 0.
     * \param exp the run, built on Topology()
     * \param config the incast
     */
    IncastExperiment(RoceExperiment& exp, const Config& config);

    IncastExperiment(const IncastExperiment&) = delete;            //!< Callbacks point at it.
    IncastExperiment& operator=(const IncastExperiment&) = delete; //!< Callbacks point at it.

    /// What runs, in one line ("# pfc-incast: 15:1 incast through one switch, ...").
    std::string Describe() const;
    /// When the last byte would arrive at the payload line rate.
    Time GetExpectedEnd() const;
    /// Whether a sender is still waiting for its completion (and not in error).
    bool IsRunning() const;

    /**
     * After the run: print the table and the summary lines, add the summary's blocks
     * ("topology", "flows", "goodput", "pfc", "switch_buffer", "drops", "retransmitted_packets",
     * "complete") and write the plot.
     * \return the plot's path, or why there is none
     */
    std::string Report();

  private:
    /// One sender's flow.
    struct Flow
    {
        std::string src;             //!< Its name, "h1" ...
        Ptr<RdmaQueuePair> sender;   //!< Its queue pair at the sender.
        Ptr<RdmaQueuePair> receiver; //!< Its queue pair at the receiver.
        Time received;               //!< Last byte at the receiver (zero until then).
        Time completed;              //!< Sender's completion, all ACKed (zero until then).
    };

    /// The plot of the switch's queues and the senders' pauses.
    std::string WritePlot(double goodput, bool lossless, uint64_t drops) const;

    RoceExperiment& m_exp;            //!< The run.
    Config m_config;                  //!< The incast.
    std::vector<Flow> m_flows;        //!< One per sender.
    Ptr<RoceSwitch> m_switch;         //!< The switch.
    uint64_t m_headroom;              //!< PFC headroom per port, bytes.
    double m_headroomScale;           //!< The switch's HeadroomScale.
    uint8_t m_pfcMask;                //!< Priorities with PFC.
    double m_payloadRate;             //!< The payload line rate, bit/s.
    uint32_t m_payload;               //!< Payload bytes per packet.
    Time m_firstArrival{Time::Max()}; //!< The first data frame's start at the receiver.
    uint64_t m_peakBuffer{0};         //!< The switch buffer's peak occupancy.
    uint32_t m_received{0};           //!< Flows whose last byte arrived.
    uint32_t m_completed{0};          //!< Flows completed at their sender.
};

} // namespace ns3

#endif /* INCAST_EXPERIMENT_H */
