#!/usr/bin/env python3
"""The DCQCN fluid model, solved on its own: an oracle for the packet-level simulator.

Model: Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT
2016, section 4 (Figure 3, equations 1-5), which extends the fluid model of Zhu et al.,
"Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, section 5, to flows with
their own state. Per flow i, with p' = p(t - tau*) and Rc' = Rc_i(t - tau*):

  p(t)       = 0 if q <= Kmin;  Pmax (q - Kmin)/(Kmax - Kmin) if Kmin < q <= Kmax;  1 above
  dq/dt      = sum_i Rc_i(t) - C                                   (q >= 0)
  dalpha/dt  = g/tau' [ (1 - (1-p')^(tau' Rc')) - alpha ]
  dRt/dt     = -(Rt - Rc)/tau (1 - (1-p')^(tau Rc'))
               + Rai Rc' (1-p')^(F B) p' / ((1-p')^(-B) - 1)
               + Rai Rc' (1-p')^(F T Rc') p' / ((1-p')^(-T Rc') - 1)
  dRc/dt     = -Rc alpha/(2 tau) (1 - (1-p')^(tau Rc'))
               + (Rt - Rc)/2 Rc' p' / ((1-p')^(-B) - 1)
               + (Rt - Rc)/2 Rc' p' / ((1-p')^(-T Rc') - 1)

The first term of each rate equation is the cut (at most one CNP per tau, when a packet of the
window was marked); the others are the expected byte-counter and timer increase events per unit
time, fast recovery and additive increase (after F events) together; hyper increase is not
modelled. As p -> 0 the event terms tend to 1/B and 1/(T Rc') per packet.

Units are packets, as in the papers (marking is a per-packet coin): rates in packets/s, q, B,
Kmin and Kmax in packets. Rates are clipped at the line rate (the reaction point never sends
faster than its port, and clips its target there).

A flow's reaction point starts with the first mark that reaches it (the flow sends at line
rate with alpha = 1 until then), as ConnectX's does; Params.start_at_first_mark = False runs the
equations from the flow's start instead.

Feedback delay tau*: the time from a packet's marking to its sender's reaction. The model takes
a constant base delay (cables, serialisation) plus, when marking is at enqueue, the queueing
delay the marked packet still has ahead of it, q/C at marking time: the mark made at t reaches
the sender at t + tau0 + q(t)/C. The queue sees each sender's rate after the sender-to-switch
delay.

Solved by fixed-step Euler with history buffers for the delayed terms. Python 3 standard
library only; nothing here calls or reads the simulator.

usage as a program (prints CSV: time_us, q_bytes, then rc<i>_gbps for each flow):
  dcqcn_fluid.py [--stop=0.2] [--dt=5e-7] [--starts=0,0.01] ...   (see --help)
"""

import argparse
import collections
import math
import sys


class Params:
    """The set-up and DCQCN's parameters, in the units given (converted by the model)."""

    def __init__(self, **kw):
        # The DCQCN paper's 40G set-up (SIGCOMM 2015 section 5; CoNEXT 2016 Table 1):
        # g 1/256, tau' = T = 55 us, tau = 50 us, B = 10 MB, F = 5, Rai = 40 Mb/s,
        # RED Kmin 5 KB, Kmax 200 KB, Pmax 1 %.
        self.line_bps = 40e9
        self.g = 1.0 / 256
        self.tau = 50e-6           # CNP interval at the notification point (s)
        self.tau_prime = 55e-6     # alpha timer (s)
        self.timer = 55e-6         # rate-increase timer T (s)
        self.byte_counter = 10e6   # B (bytes)
        self.f = 5                 # fast-recovery steps
        self.rai_bps = 40e6        # additive increase step
        self.kmin = 5e3            # bytes
        self.kmax = 200e3          # bytes
        self.pmax = 0.01
        # The packet: 4096-byte payload (RdmaQueuePair PayloadSize default); on the wire it
        # takes payload + 82 bytes (BTH 12, ICRC 4, UDP 8, IPv4 20, Ethernet 14, preamble/SFD/
        # FCS/IFG 24), in the switch queue payload + 58 (the frame without the 24).
        self.wire_bytes = 4096 + 82
        self.queue_bytes = 4096 + 58
        # Loop delays (s): sender -> switch (one frame's serialisation + 1 us cable), and the
        # rest of the loop from a mark to the sender (the marked frame's serialisation and
        # cable to the receiver, the CNP's serialisation and two cables back).
        self.forward_delay = (4096 + 82) * 8 / 40e9 + 1e-6
        self.tau0 = (4096 + 82) * 8 / 40e9 + 3e-6 + 2 * 98 * 8 / 40e9
        self.queueing_in_delay = True  # marking at enqueue: add q/C to tau*
        # A reaction point starts with its first congestion notification: until then the flow
        # sends at line rate with alpha = 1 and no timers (ConnectX; RdmaCcDcqcn). False: the
        # equations run from the flow's start (alpha decays while nothing is marked).
        self.start_at_first_mark = True
        for k, v in kw.items():
            if not hasattr(self, k):
                raise ValueError(f"unknown parameter {k}")
            setattr(self, k, v)


def marking(q, kmin, kmax, pmax):
    """RED marking probability of a packet that finds q in the queue (same units)."""
    if q <= kmin:
        return 0.0
    if q <= kmax:
        return pmax * (q - kmin) / (kmax - kmin)
    return 1.0


def event_terms(p, rc, tau, b, timer, f):
    """(a, b, c, d, e): the probability of a cut in a CNP interval, and the byte-counter and
    timer event rates per packet sent, all events (b, d) and additive-increase ones (c, e)."""
    if p <= 0.0:
        d = 1.0 / (timer * rc) if rc > 0 else 0.0
        return 0.0, 1.0 / b, 1.0 / b, d, d
    if p >= 1.0:
        return 1.0, 0.0, 0.0, 0.0, 0.0
    l1p = math.log1p(-p)  # log(1 - p) < 0
    a = -math.expm1(tau * rc * l1p)
    bb = p / math.expm1(-b * l1p)
    c = bb * math.exp(f * b * l1p)
    if rc > 0:
        d = p / math.expm1(-timer * rc * l1p)
        e = d * math.exp(f * timer * rc * l1p)
    else:
        d = e = 0.0
    return a, bb, c, d, e


def solve(params, starts, stop, dt=5e-7, record_every=1e-5):
    """Integrate the model for flows starting at the given times (s) until stop (s).

    Returns a list of rows (t, q_bytes, [rc_bps per flow], [alpha per flow]) every
    record_every seconds. A flow starts at line rate with Rt = line rate and alpha = 1 (the
    reaction point's state before its first CNP).
    """
    P = params
    pkt_bits = 8.0 * P.wire_bytes
    C = P.line_bps / pkt_bits                    # packets/s
    rai = P.rai_bps / pkt_bits
    B = P.byte_counter / P.wire_bytes            # packets (the counter counts wire bytes)
    kmin = P.kmin / P.queue_bytes
    kmax = P.kmax / P.queue_bytes
    n = len(starts)
    rc = [0.0] * n
    rt = [0.0] * n
    alpha = [0.0] * n
    active = [False] * n
    controlled = [not P.start_at_first_mark] * n
    q = 0.0
    # Marks on their way back: (arrival time at the senders, p, rc of each flow at marking).
    feedback = collections.deque()
    current = (0.0, [0.0] * n)  # the feedback acting now
    # Rates on their way to the switch.
    fwd_steps = max(0, int(round(P.forward_delay / dt)))
    sent = collections.deque([[0.0] * n] * (fwd_steps + 1), maxlen=fwd_steps + 1)
    rows = []
    steps = int(round(stop / dt))
    rec = max(1, int(round(record_every / dt)))
    for k in range(steps + 1):
        t = k * dt
        for i in range(n):
            if not active[i] and t >= starts[i] - 1e-12:
                active[i] = True
                rc[i] = rt[i] = C
                alpha[i] = 1.0
        if k % rec == 0:
            rows.append((t, q * P.queue_bytes, [r * pkt_bits for r in rc], list(alpha)))
        if k == steps:
            break
        # A mark made now reaches the senders after tau0 (+ the queueing still ahead of it).
        delay = P.tau0 + (q / C if P.queueing_in_delay else 0.0)
        feedback.append((t + delay, marking(q, kmin, kmax, P.pmax), list(rc)))
        while feedback and feedback[0][0] <= t + 1e-15:
            _, pd, rcd = feedback.popleft()
            current = (pd, rcd)
        pd, rcd = current
        # Queue: the senders' rates forward_delay ago.
        arriving = sent[0]
        dq = sum(arriving) - C
        if q <= 0.0 and dq < 0.0:
            dq = 0.0
        new_rc, new_rt, new_alpha = list(rc), list(rt), list(alpha)
        for i in range(n):
            if not active[i]:
                continue
            if not controlled[i]:
                if pd <= 0.0:
                    continue  # line rate, alpha 1: no reaction point yet
                controlled[i] = True
            a, b, c, d, e = event_terms(pd, rcd[i], P.tau, B, P.timer, P.f)
            if pd <= 0.0:
                cnp_alpha = 0.0
            elif pd >= 1.0:
                cnp_alpha = 1.0
            else:
                cnp_alpha = -math.expm1(P.tau_prime * rcd[i] * math.log1p(-pd))
            dalpha = P.g / P.tau_prime * (cnp_alpha - alpha[i])
            drt = -(rt[i] - rc[i]) / P.tau * a + rai * rcd[i] * c + rai * rcd[i] * e
            drc = (-rc[i] * alpha[i] / (2 * P.tau) * a
                   + (rt[i] - rc[i]) / 2 * rcd[i] * b
                   + (rt[i] - rc[i]) / 2 * rcd[i] * d)
            new_alpha[i] = min(1.0, max(0.0, alpha[i] + dalpha * dt))
            new_rt[i] = min(C, max(0.0, rt[i] + drt * dt))
            new_rc[i] = min(C, max(0.0, rc[i] + drc * dt))
        rc, rt, alpha = new_rc, new_rt, new_alpha
        q = max(0.0, q + dq * dt)
        sent.append(list(rc))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stop", type=float, default=0.2, help="end time (s)")
    ap.add_argument("--dt", type=float, default=5e-7, help="Euler step (s)")
    ap.add_argument("--starts", default="0,0.01", help="flow start times (s), comma-separated")
    ap.add_argument("--every", type=float, default=1e-5, help="output interval (s)")
    ap.add_argument("--fixed-delay", type=float, default=None,
                    help="use this constant tau* (s) instead of tau0 + q/C")
    ap.add_argument("--alpha-from-start", action="store_true",
                    help="run the equations from each flow's start (alpha decays before any mark)")
    args = ap.parse_args()
    params = Params(start_at_first_mark=not args.alpha_from_start)
    if args.fixed_delay is not None:
        params.tau0 = args.fixed_delay
        params.queueing_in_delay = False
    starts = [float(s) for s in args.starts.split(",")]
    rows = solve(params, starts, args.stop, args.dt, args.every)
    out = sys.stdout
    out.write("time_us,q_bytes," + ",".join(f"rc{i}_gbps" for i in range(len(starts))) + "\n")
    for t, qb, rcs, _ in rows:
        out.write(f"{t * 1e6:.3f},{qb:.1f}," + ",".join(f"{r / 1e9:.6f}" for r in rcs) + "\n")


if __name__ == "__main__":
    main()
