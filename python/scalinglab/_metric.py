"""The value of one scalar metric from eval(): the same accessors whether the measure is a
simulation (mean, std, sem and count over its runs) or a theory (one exact number)."""

_FIELDS = ("mean", "std", "sem", "count")


class Metric:
    """What Exact and Estimate share: .mean, .std, .sem, .count, m["mean"] and float(m) (the mean)."""

    __slots__ = ()


class Exact(Metric, float):
    """A metric of a deterministic measure (theory): a float, with the accessors of an Estimate
    (std and sem 0, count 1) so that code written for simulations also reads theories."""

    __slots__ = ()

    @property
    def mean(self):
        return float(self)

    @property
    def std(self):
        return 0.0

    @property
    def sem(self):
        return 0.0

    @property
    def count(self):
        return 1

    def __getitem__(self, key):
        if key not in _FIELDS:
            raise KeyError(key)
        return getattr(self, key)


class Estimate(Metric, dict):
    """A metric of a stochastic measure: the dict {"mean", "std", "sem", "count"} over the runs, also
    read as attributes (m.mean, m.sem). float(m) and a format such as f"{m:.3f}" give the mean."""

    __slots__ = ()

    @property
    def mean(self):
        return self["mean"]

    @property
    def std(self):
        return self["std"]

    @property
    def sem(self):
        return self["sem"]

    @property
    def count(self):
        return self["count"]

    def __float__(self):
        return float(self["mean"])

    def __format__(self, spec):
        return format(float(self), spec) if spec else dict.__format__(self, spec)
