"""The finger paths xmpp_peer.py and original_app.py draw."""

import math


def random_walk(r, count, width, height):
    """`count` points (at least one) of a random walk inside width x height from a random
    start, like a hand-drawn line: `r` (a random.Random) makes it deterministic."""
    x, y = r.uniform(0, width), r.uniform(0, height)
    heading = r.uniform(0, 2 * math.pi)
    points = []
    for _ in range(max(1, count)):
        points.append([x, y])
        heading += r.uniform(-0.4, 0.4)
        step = r.uniform(2.0, 12.0)
        x = min(max(x + step * math.cos(heading), 0.0), width)
        y = min(max(y + step * math.sin(heading), 0.0), height)
    return points
