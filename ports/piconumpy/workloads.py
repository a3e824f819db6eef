"""The PicoNumPy workloads, timed by bench.py, counted by callgrind_ops.py
and measured by the evaluation harness (eval/harness/PORT_INTERFACE.md).

board  sleds sliding down a snowy slope, integrated with classic
       Runge-Kutta 4 (see `board`).  Every time step builds a dozen small
       4-element arrays through +, -, * and /, so most of the time goes into
       calls to the extension.  10 sleds x 200 steps make one simulation;
       it is repeated to bring one run of the stock variant to 1-3 s.
ops    a loop of small-array operations and item accesses, with no other
       Python work: the cost of a call into the extension, undiluted.
"""

from __future__ import annotations

import math

# Loaded by path inside every benchmark worker and by the evaluation
# harness, where only the variant's site and the standard library are
# importable: nothing else may be imported here.

# -- the board workload -----------------------------------------------------
#
# A sled is a point mass on the ground profile y = h(x) = HEIGHT*exp(-x/LENGTH):
# a 37-degree slope at x = 0 flattening out downhill.  It is kept on the
# ground (bead-on-a-wire constraint), slowed by Coulomb friction against the
# normal force and by air drag.  With t = (cos a, sin a) the unit tangent
# (tan a = h'(x)), the acceleration along the ground is
#
#     a_t = -g sin a - mu N sgn(v) - c v |v|,    N = (g + h'' vx^2) cos a,
#
# where v = vx / cos a is the speed along the ground, and the constraint
# gives
#
#     ax = a_t cos a - h' h'' vx^2 cos^2 a,    ay = h' ax + h'' vx^2.
#
# The state is the array [x, y, vx, vy]; y and vy follow from x and vx but
# are integrated too, as a general-purpose solver would.  sgn is smoothed
# (v / sqrt(v^2 + eps)) so that a sled coming to rest does not make the
# right-hand side discontinuous.

GRAVITY = 9.81
HEIGHT = 30.0
LENGTH = 40.0
SIGN_EPSILON = 1e-4
SLEDS = 10
STEPS = 200
TIME_STEP = 0.05


def ground(x):
    """h(x), h'(x), h''(x)."""
    h = HEIGHT * math.exp(-x / LENGTH)
    return h, -h / LENGTH, h / (LENGTH * LENGTH)


def sled_derivative(piconumpy, state, friction, drag):
    x = state[0]
    vx = state[2]
    _, slope, curvature = ground(x)
    cos_a = 1.0 / math.sqrt(1.0 + slope * slope)
    sin_a = slope * cos_a
    speed = vx / cos_a
    centripetal = curvature * vx * vx
    normal = (GRAVITY + centripetal) * cos_a
    along = (-GRAVITY * sin_a
             - friction * normal * speed / math.sqrt(speed * speed + SIGN_EPSILON)
             - drag * speed * abs(speed))
    ax = along * cos_a - slope * centripetal * cos_a * cos_a
    ay = slope * ax + centripetal
    return piconumpy.array([vx, state[3], ax, ay])


def rk4_step(piconumpy, state, dt, friction, drag):
    def f(s):
        return sled_derivative(piconumpy, s, friction, drag)

    k1 = f(state)
    k2 = f(state + k1 * (dt / 2))
    k3 = f(state + k2 * (dt / 2))
    k4 = f(state + k3 * dt)
    return state + (k1 + k2 * 2 + k3 * 2 + k4) * dt / 6


def simulate_sled(piconumpy, x0, speed0, friction, drag, steps=STEPS, dt=TIME_STEP):
    """Final state and distance travelled along the way."""
    h, slope, _ = ground(x0)
    cos_a = 1.0 / math.sqrt(1.0 + slope * slope)
    vx0 = speed0 * cos_a
    state = piconumpy.array([x0, h, vx0, slope * vx0])
    travelled = 0.0
    for _ in range(steps):
        new = rk4_step(piconumpy, state, dt, friction, drag)
        moved = new - state
        travelled += math.hypot(moved[0], moved[1])
        state = new
    return state, travelled


def board(piconumpy, repeat, sleds=SLEDS, steps=STEPS):
    """Simulate `sleds` different sleds, `repeat` times; returns a checksum."""
    checksum = 0.0
    for _ in range(repeat):
        for i in range(sleds):
            state, travelled = simulate_sled(
                piconumpy,
                x0=1.0 * i,
                speed0=0.5 * i,
                friction=0.05 + 0.01 * i,
                drag=0.002,
                steps=steps,
            )
            checksum += state[0] + state[2] + travelled
    return checksum


# -- the ops workload -------------------------------------------------------

def ops(piconumpy, repeat):
    """`repeat` rounds of small-array operations; returns a checksum."""
    a = piconumpy.array([1.0, 2.0, 3.0, 4.0])
    b = piconumpy.array([0.5, 0.25, 0.125, 0.0625])
    c = piconumpy.empty(4)
    for _ in range(repeat):
        c = a + b
        c = c * 0.5
        c = 2.0 * c
        c = c - b
        c = c / 3.0
        c[0] = c[1]
        a[3] = c[2] + len(c)
    return sum(c.tolist()) + sum(a.tolist())


WORKLOADS = {
    "board": board,
    "ops": ops,
}

# `repeat` per workload: full runs are sized for 1-3 s of the stock variant
# on the development machine; quick runs only check that everything works,
# at about 1/15 of a full run like the other ports' (shorter ones, 5-50 ms,
# left Scalene without a sample on a loaded host: "empty profile").
SIZES = {
    False: {"board": 180, "ops": 4_500_000},
    True: {"board": 12, "ops": 300_000},
}
