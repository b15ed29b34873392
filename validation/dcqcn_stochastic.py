#!/usr/bin/env python3
"""DCQCN with random marks: the fluid model's queue, the paper's per-flow state machines.

The fluid model (dcqcn_fluid.py) replaces every mark by its expectation, so its two flows are
identical and their shares equal at every instant. A real switch marks each packet by a coin
toss, so CNPs arrive at random and each one cuts a few per cent off one flow. This model keeps
everything else of the fluid model (the queue as a fluid, dq/dt = sum Rc - C; RED marking
p(q); the same loop delays) and replaces the expectations by the events themselves:

- the switch marks each packet with probability p(q) (packets leave each sender at Rc);
- the notification point sends a CNP for the first marked packet of a flow once at least tau
  has passed since its previous CNP (the CNP interval, 50 us in the paper);
- each reaction point runs DCQCN's state machine as the SIGCOMM 2015 paper describes it
  (section 3.1 and Figure 7): on a CNP, Rt <- Rc, Rc <- Rc (1 - alpha/2), alpha <- (1-g) alpha
  + g and both counters reset; alpha decays by (1-g) every tau' without a CNP; the timer (every
  T) and the byte counter (every B bytes) each count a stage: the first F stages are fast
  recovery (Rc <- (Rt + Rc)/2), then additive increase (Rt <- Rt + Rai first) once one counter
  is past F, hyper increase (Rt <- Rt + Rhai) once both are.

So the model is what the fluid model would be without the law of large numbers, with the
parameters of dcqcn_fluid.Params, and it owes nothing to the simulator: it is the independent
reference for how unequal two DCQCN flows are over short windows.

Fixed-step (dt, 1 us by default); a seeded random.Random, so a seed gives the same run.
"""

import collections
import math
import random

import dcqcn_fluid


def simulate(params, starts, stop, seed, dt=1e-6, rhai_bps=200e6, record_every=1e-5):
    """Run the flows starting at `starts` (s) until `stop` (s) with random marks.

    rhai_bps: the hyper-increase step (the fluid model leaves hyper increase out; 200 Mb/s as
    RdmaCcDcqcn's paper preset, after ns3-rdma; with B = 10 MB both counters rarely pass F).
    Returns (rows, windows): rows every record_every as (t, q_bytes, [rc_bps per flow]) and,
    per 1 ms window w (from 0), each flow's average sending rate in b/s over it.
    """
    P = params
    rnd = random.Random(seed)
    pkt_bits = 8.0 * P.wire_bytes
    C = P.line_bps                               # b/s
    kmin = P.kmin / P.queue_bytes                # packets
    kmax = P.kmax / P.queue_bytes
    n = len(starts)
    rc = [C] * n
    rt = [C] * n
    alpha = [1.0] * n
    controlled = [False] * n     # the reaction point starts with its first CNP
    cnp_in_tau_prime = [False] * n
    next_alpha = [0.0] * n
    next_timer = [0.0] * n
    timer_stage = [0] * n
    byte_stage = [0] * n
    bytes_since = [0.0] * n
    last_cnp = [-math.inf] * n
    carry = [0.0] * n            # fractional packets not sent yet
    q = 0.0                      # packets
    cnps = collections.deque()   # CNPs on their way: (arrival at the sender, flow)
    fwd = max(0, int(round(P.forward_delay / dt)))
    in_flight = collections.deque([[0.0] * n] * (fwd + 1), maxlen=fwd + 1)
    steps = int(round(stop / dt))
    rec = max(1, int(round(record_every / dt)))
    rows = []
    windows = collections.defaultdict(lambda: [0.0] * n)

    def increase(i):
        past_timer = timer_stage[i] > P.f
        past_bytes = byte_stage[i] > P.f
        if past_timer and past_bytes:
            rt[i] = min(rt[i] + rhai_bps, C)
        elif past_timer or past_bytes:
            rt[i] = min(rt[i] + P.rai_bps, C)
        rc[i] = min((rt[i] + rc[i]) / 2, C)

    for k in range(steps + 1):
        t = k * dt
        if k % rec == 0:
            rows.append((t, q * P.queue_bytes, list(rc)))
        if k == steps:
            break
        while cnps and cnps[0][0] <= t:
            _, i = cnps.popleft()
            if not controlled[i]:
                controlled[i] = True
                next_alpha[i] = t + P.tau_prime
            cnp_in_tau_prime[i] = True
            rt[i] = rc[i]
            rc[i] = rc[i] * (1 - alpha[i] / 2)
            timer_stage[i] = byte_stage[i] = 0
            bytes_since[i] = 0.0
            next_timer[i] = t + P.timer
        p = dcqcn_fluid.marking(q, kmin, kmax, P.pmax)
        delay = P.tau0 + (q * pkt_bits / C if P.queueing_in_delay else 0.0)
        for i in range(n):
            if t < starts[i]:
                continue
            if controlled[i]:
                while next_alpha[i] <= t:
                    g = P.g if cnp_in_tau_prime[i] else 0.0
                    alpha[i] = (1 - P.g) * alpha[i] + g
                    cnp_in_tau_prime[i] = False
                    next_alpha[i] += P.tau_prime
                while next_timer[i] <= t:
                    timer_stage[i] += 1
                    increase(i)
                    next_timer[i] += P.timer
            sent_bits = rc[i] * dt
            windows[int(t * 1000 + 1e-9)][i] += sent_bits
            if controlled[i]:
                bytes_since[i] += sent_bits / 8
                while bytes_since[i] >= P.byte_counter:
                    bytes_since[i] -= P.byte_counter
                    byte_stage[i] += 1
                    increase(i)
            # Packets reaching the switch now left the sender forward_delay ago; each is
            # marked by its own coin, and the first marked one after tau makes a CNP.
        arriving = in_flight[0]
        for i in range(n):
            carry[i] += arriving[i] * dt / pkt_bits
            packets = int(carry[i])
            carry[i] -= packets
            if packets and p > 0 and t - last_cnp[i] >= P.tau:
                if p >= 1 or rnd.random() < 1 - (1 - p) ** packets:
                    last_cnp[i] = t
                    cnps.append((t + delay, i))
        if len(cnps) > 1:
            cnps = collections.deque(sorted(cnps))
        q = max(0.0, q + (sum(arriving) - C) * dt / pkt_bits)
        in_flight.append([rc[i] if t >= starts[i] else 0.0 for i in range(n)])
    per_window = {w: [b / 1e-3 for b in bits] for w, bits in windows.items()}
    return rows, per_window
