/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef VICTIM_EXPERIMENT_H
#define VICTIM_EXPERIMENT_H

#include "roce-experiment.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The PFC victim flow: H1 and H2 behind switch S1 and H3 behind S2 send to R behind S2;
 * the victim H5 (behind S1) sends to H4 (behind S2) and shares only the S1->S2 link with them.
 * Without congestion control R's port is the bottleneck; with PFC, S2 pauses S1's uplink, S1's
 * egress to S2 fills, and S1 pauses all its ingress ports, H5's included: the victim falls far
 * below its max-min fair share though its own path is not congested.
 *
 *        H1 --\                 /-- H3
 *        H2 ---- S1 ======== S2 --- R
 *        H5 --/                 \-- H4
 *
 * Each flow is a stream of 16 KiB WRITEs for the whole run; throughput is measured over its
 * second half (the first lets the queues and pauses settle) against each flow's max-min fair
 * share (MaxMinFairRates over the links' payload bandwidth). It samples every switch port and
 * the senders' ports (queues.csv), bins each flow's throughput (throughput.csv), and reports a
 * table, summary.json's blocks and a plot (pfc-victim.gp, .png).
 */
class VictimExperiment
{
  public:
    /// The fabric and the run.
    struct Config
    {
        DataRate linkRate{"100Gbps"};         //!< Rate of the host links.
        DataRate uplinkRate{"400Gbps"};       //!< Rate of the S1-S2 link.
        Time linkDelay{MicroSeconds(1)};      //!< Propagation delay of every link.
        Time duration{MilliSeconds(20)};      //!< How long the flows send.
        Time bin{MicroSeconds(200)};          //!< Time bin of throughput.csv.
        Time sampleInterval{MicroSeconds(1)}; //!< Between rows of queues.csv.
    };

    /**
     * The six hosts (h1, h2, h3, h4, h5, r: host indices in that order) and the two switches.
     * S1's ports: 0 h1, 1 h2, 2 h5, 3 s2; S2's: 0 s1, 1 h3, 2 r, 3 h4.
     * \param config the fabric
     * \return the topology
     */
    static FabricTopology Topology(const Config& config);

    /**
     * Connect the four flows' queue pairs, compute their fair shares, count drops per flow,
     * start the sampler and post enough writes to keep every sender busy for the whole run.
     * \param exp the run, built on Topology()
     * \param config the run
     */
    VictimExperiment(RoceExperiment& exp, const Config& config);

    VictimExperiment(const VictimExperiment&) = delete;            //!< Callbacks point at it.
    VictimExperiment& operator=(const VictimExperiment&) = delete; //!< Callbacks point at it.

    /// What runs, in one line ("# pfc-victim: H1, H2 (behind S1) ...").
    std::string Describe() const;

    /**
     * After the run: print the table and the summary lines, write throughput.csv, add the
     * summary's blocks ("topology", "window", "flows", "victim", "pfc", "drops",
     * "retransmitted_packets") and write the plot.
     * \return the plot's path, or why there is none
     */
    std::string Report();

  private:
    /// One flow: a stream of writes from src to dst.
    struct Flow
    {
        std::string src;               //!< Sender's name.
        std::string dst;               //!< Receiver's name.
        bool victim;                   //!< Whether it is the victim.
        Ptr<RdmaQueuePair> sender;     //!< Its queue pair at the sender.
        Ptr<RdmaQueuePair> receiver;   //!< Its queue pair at the receiver.
        uint64_t received{0};          //!< Bytes completed at the receiver, whole run.
        uint64_t receivedWindow{0};    //!< The same, inside the measurement window.
        uint64_t drops{0};             //!< Its packets the switches dropped.
        std::vector<uint64_t> bins;    //!< Bytes completed per time bin.
        std::vector<std::string> path; //!< Its directed links, "a>b".
        double fairShare{0};           //!< Max-min fair rate, bit/s.
    };

    /// Count a packet the switch dropped, by ingress port and by the flow it belongs to.
    void Dropped(const std::string& sw, Ptr<const Packet> p, uint32_t inPort);
    /// Write throughput.csv.
    void WriteThroughput() const;
    /// The plot of throughputs, queues and pauses.
    std::string WritePlot(double victimTput, bool lossless, uint64_t drops) const;

    RoceExperiment& m_exp;                     //!< The run.
    Config m_config;                           //!< The run's settings.
    FabricTopology m_topology;                 //!< The fabric.
    std::vector<Flow> m_flows;                 //!< h1->r, h2->r, h3->r, h5->h4 (the victim).
    std::map<std::string, uint64_t> m_dropsAt; //!< Drops by switch ingress port, "s1:2".
    uint8_t m_pfcMask;                         //!< Priorities with PFC.
    uint32_t m_nBins;                          //!< Bins of throughput.csv.
    Time m_windowStart;                        //!< Start of the measurement window.
    double m_payloadRate;                      //!< A host link's payload bandwidth, bit/s.
    double m_uplinkPayloadRate;                //!< The S1-S2 link's, bit/s.
};

} // namespace ns3

#endif /* VICTIM_EXPERIMENT_H */
