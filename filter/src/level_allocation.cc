#include "sstfilter/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace sstfilter {
namespace {

bool ByBitsThenFpr(const FilterChoice& a, const FilterChoice& b) {
  return a.bits_per_key < b.bits_per_key ||
         (a.bits_per_key == b.bits_per_key && a.fpr < b.fpr);
}

// The lower convex hull of `points` in (bits/key, FPR), by bits/key: only
// its points can minimise fpr + price * bits.
std::vector<FilterChoice> LowerHull(std::vector<FilterChoice> points) {
  std::sort(points.begin(), points.end(), ByBitsThenFpr);
  std::vector<FilterChoice> lower;  // monotone chain
  for (const FilterChoice& c : points) {
    if (!lower.empty() && c.fpr >= lower.back().fpr) continue;  // dominated
    while (lower.size() >= 2) {
      const FilterChoice& a = lower[lower.size() - 2];
      const FilterChoice& b = lower.back();
      const double cross = (b.bits_per_key - a.bits_per_key) * (c.fpr - a.fpr) -
                           (b.fpr - a.fpr) * (c.bits_per_key - a.bits_per_key);
      if (cross > 0) break;  // b is below the chord a-c: keep it
      lower.pop_back();
    }
    lower.push_back(c);
  }
  return lower;
}

// One kind, prepared: its hull and its points by bits/key.
struct PreparedKind {
  const KindModel* model;
  std::vector<FilterChoice> hull;
  std::vector<FilterChoice> points;  // sorted by bits/key
  // best[i]: the point of lowest FPR among points[0..i].
  std::vector<size_t> best;
};

// The point of hull[0..end) minimising fpr + price * bits. Along a lower
// convex hull that sum falls, then rises: binary search for the turn.
const FilterChoice& HullMinimum(const std::vector<FilterChoice>& hull,
                                size_t end, double price) {
  size_t lo = 0, hi = end - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const FilterChoice& a = hull[mid];
    const FilterChoice& b = hull[mid + 1];
    if (b.fpr + price * b.bits_per_key < a.fpr + price * a.bits_per_key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return hull[lo];
}

class Allocator {
 public:
  Allocator(const LevelCostModel& model, double average,
            const std::vector<LevelLoad>& loads)
      : model_(model),
        average_(average),
        max_bits_(model.max_bits_per_key > 0
                      ? std::max(model.max_bits_per_key, average)
                      : LevelAllocation::MaxBitsPerKey(average)) {
    for (const KindModel& kind : model.kinds) {
      PreparedKind p{&kind, LowerHull(kind.points), kind.points, {}};
      std::sort(p.points.begin(), p.points.end(), ByBitsThenFpr);
      for (size_t i = 0; i < p.points.size(); ++i) {
        p.best.push_back(i > 0 && p.points[p.best[i - 1]].fpr <= p.points[i].fpr
                             ? p.best[i - 1]
                             : i);
      }
      // Points past the cap cannot be used; a kind with none below it
      // (or none at all) is left out.
      const auto end = std::upper_bound(
          p.hull.begin(), p.hull.end(), max_bits_,
          [](double b, const FilterChoice& c) { return b < c.bits_per_key; });
      p.hull.erase(end, p.hull.end());
      if (!p.hull.empty()) kinds_.push_back(std::move(p));
    }
    double total_share = 0;
    for (const LevelLoad& load : loads) total_share += load.entry_share;
    for (const LevelLoad& load : loads) {
      shares_.push_back(load.entry_share / total_share);
      weights_.push_back(load.build_weight);
      absent_.push_back(std::max(load.absent_probes, 0.0));
    }
    // The order in which bits/key should grow: by absent probes per entry,
    // fewest first (with a_i = 1, the bottom first). Ties keep the bottom
    // first.
    for (size_t i = 0; i < loads.size(); ++i) by_density_.push_back(i);
    std::stable_sort(by_density_.begin(), by_density_.end(),
                     [this](size_t a, size_t b) {
                       return absent_[a] * shares_[b] < absent_[b] * shares_[a];
                     });
  }

  bool has_kinds() const { return !kinds_.empty(); }

  LevelAllocation Run() {
    // mu = 0 first: if the fewest-FPR allocation is within the CPU cap,
    // the cap does not bind. Otherwise the lowest mu that meets it
    // (geometric bisection); if none does, the highest tried.
    Result best = ForMu(0);
    if (best.build_ns > model_.max_build_ns) {
      // The CPU price mu, ns of build against FPR, spans every ratio these
      // curves and costs can make (FPRs of 1e-30..1 against 1..1e4 ns per
      // key); 80 geometric halvings of that range leave it within a factor
      // of 1 + 1e-22, far finer than any step between two sizes.
      double low = 1e-30, high = 1e30;
      Result at_high = ForMu(high);
      if (at_high.build_ns <= model_.max_build_ns) {
        for (int step = 0; step < 80; ++step) {
          const double mid = std::sqrt(low * high);
          Result r = ForMu(mid);
          if (r.build_ns <= model_.max_build_ns) {
            high = mid;
            at_high = std::move(r);
          } else {
            low = mid;
          }
        }
      }
      best = std::move(at_high);
    }
    SpendWhatIsLeft(&best);
    if (shares_.size() <= LevelAllocationLimits::kMaxLevelsExchanged &&
        Exchange(&best)) {
      SpendWhatIsLeft(&best);
    }
    LevelAllocation out;
    out.levels = std::move(best.levels);
    out.build_ns = best.build_ns;
    return out;
  }

 private:
  struct Result {
    std::vector<FilterChoice> levels;
    double memory = 0;
    double build_ns = 0;
  };

  // Per level, the (kind, point) minimising the Lagrangian.
  Result Allocate(double lambda, double mu) const {
    Result r;
    r.levels.resize(shares_.size());
    for (size_t i = 0; i < shares_.size(); ++i) {
      double best_cost = 0;
      const PreparedKind* best_kind = nullptr;
      for (const PreparedKind& k : kinds_) {
        const BuildCost& build = k.model->build;
        const double price =
            lambda * shares_[i] + mu * weights_[i] * build.ns_per_key_bit;
        // A level no absent probe reaches gets the kind's smallest size.
        const FilterChoice& c =
            absent_[i] > 0
                ? HullMinimum(k.hull, k.hull.size(), price / absent_[i])
                : k.hull.front();
        const double cost = absent_[i] * c.fpr +
                            lambda * shares_[i] * c.bits_per_key +
                            mu * weights_[i] * build.Ns(c.bits_per_key);
        if (best_kind == nullptr || cost < best_cost) {
          best_cost = cost;
          best_kind = &k;
          r.levels[i] = c;
        }
      }
      r.memory += shares_[i] * r.levels[i].bits_per_key;
      r.build_ns +=
          weights_[i] * best_kind->model->build.Ns(r.levels[i].bits_per_key);
    }
    return r;
  }

  // The lowest memory price whose allocation fits the budget.
  Result ForMu(double mu) const {
    // The memory price lambda, FPR per bit of budget, likewise over every
    // ratio the curves can make, with absent probes in any unit: 160
    // geometric halvings of 1e-40..1e40 leave it within 1 + 1e-22.
    // Allocate(high) spends the minimum.
    double low = 1e-40, high = 1e40;
    for (int step = 0; step < 160; ++step) {
      const double mid = std::sqrt(low * high);
      (Allocate(mid, mu).memory > average_ ? low : high) = mid;
    }
    return Allocate(high, mu);
  }

  const PreparedKind* Find(FilterKind kind) const {
    for (const PreparedKind& k : kinds_) {
      if (k.model->kind == kind) return &k;
    }
    return nullptr;
  }

  // The best filter within `bits` among `kind`'s points (or its `within`).
  FilterChoice BestWithin(const PreparedKind& kind, double bits) const {
    if (kind.model->within) return kind.model->within(bits);
    const auto end = std::upper_bound(
        kind.points.begin(), kind.points.end(), bits,
        [](double b, const FilterChoice& c) { return b < c.bits_per_key; });
    if (end == kind.points.begin()) return {kind.model->kind, 0, 0, 2};
    return kind
        .points[kind.best[static_cast<size_t>(end - kind.points.begin() - 1)]];
  }

  // What the hull's steps leave over goes to the levels with the fewest
  // absent probes per entry first (the largest, bottom first, when every
  // level is probed alike), each up to the bits of the next in that order,
  // so that the budget is spent and bits/key still grow with probes per
  // entry. The kind whose filter within that many bits has the lowest FPR
  // takes it, within the CPU cap.
  void SpendWhatIsLeft(Result* r) const {
    const size_t n = r->levels.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = by_density_[k];
      const double left = average_ - r->memory;
      if (left <= average_ * 1e-12) break;
      FilterChoice& level = r->levels[i];
      if (absent_[i] <= 0) continue;  // no probe: no bits beyond the least
      const double ceiling =
          k + 1 < n ? std::max(level.bits_per_key,
                               r->levels[by_density_[k + 1]].bits_per_key)
                    : max_bits_;
      const double offered =
          std::min(ceiling, level.bits_per_key + left / shares_[i]);
      if (offered <= level.bits_per_key) continue;
      const PreparedKind* now = Find(level.kind);
      const double build_now = now->model->build.Ns(level.bits_per_key);
      const double cap = std::max(model_.max_build_ns, r->build_ns);
      FilterChoice best = level;
      double best_build = r->build_ns;
      for (const PreparedKind& k : kinds_) {
        const FilterChoice c = BestWithin(k, offered);
        const double build =
            r->build_ns +
            weights_[i] * (k.model->build.Ns(c.bits_per_key) - build_now);
        if (c.fpr < best.fpr && build <= cap) {
          best = c;
          best_build = build;
        }
      }
      r->memory += shares_[i] * (best.bits_per_key - level.bits_per_key);
      r->build_ns = best_build;
      level = best;
    }
  }

  // The Lagrangian can only pick hull vertices, and a kind's curve (Ribbon's
  // especially, whose sizes come in uneven steps) may hold a level at one
  // vertex over a wide range of prices while another level takes what is
  // left; the result can be a step or two from the optimum. This finishes
  // it: while moving memory from one level (down to any of its kind's
  // smaller sizes) to another (any kind, up to what was freed) lowers the
  // sum of FPRs within the CPU cap, do the best such move.
  // Whether levels i and j replaced by a and b keep FPR non-increasing
  // as absent probes per entry grow (from the bottom up when every level is
  // probed alike).
  bool Monotone(const std::vector<FilterChoice>& levels, size_t i,
                const FilterChoice& a, size_t j, const FilterChoice& b) const {
    auto fpr = [&](size_t k) {
      return k == i ? a.fpr : k == j ? b.fpr : levels[k].fpr;
    };
    const size_t n = by_density_.size();
    for (size_t k = 0; k + 1 < n; ++k) {
      const size_t lower = by_density_[k], higher = by_density_[k + 1];
      if (lower != i && lower != j && higher != i && higher != j) continue;
      if (fpr(higher) > fpr(lower)) return false;
    }
    return true;
  }

  // Moves that gain less than a millionth of the sum are not worth making.
  // Returns whether any move was made.
  bool Exchange(Result* r) const {
    const size_t n = r->levels.size();
    const double cap = std::max(model_.max_build_ns, r->build_ns);
    bool moved = false;
    // Each round makes the best move that gains more than a millionth; the
    // bound is far above the moves any allocation of up to kMaxLevelsExchanged
    // levels needs (the Lagrangian leaves each level a step or two from its
    // optimum), so that the loop ends even if gains cycle through rounding.
    for (int round = 0; round < 200; ++round) {
      double sum = 0;
      for (size_t i = 0; i < n; ++i) sum += absent_[i] * r->levels[i].fpr;
      double best_gain = 1e-6 * sum;
      size_t best_i = 0, best_j = 0;
      FilterChoice new_i, new_j;
      new_j.bits_per_key = 0;
      double new_build = 0, new_memory = 0;
      for (size_t i = 0; i < n; ++i) {
        const FilterChoice& from = r->levels[i];
        const PreparedKind* kind_i = Find(from.kind);
        if (kind_i == nullptr) continue;
        const double build_i = kind_i->model->build.Ns(from.bits_per_key);
        // The donor's smaller sizes, nearest first (a few dozen).
        auto at =
            std::lower_bound(kind_i->points.begin(), kind_i->points.end(), from,
                             [](const FilterChoice& a, const FilterChoice& b) {
                               return a.bits_per_key < b.bits_per_key;
                             });
        int tried = 0;
        // The donor's 48 nearest smaller sizes: 6 bits/key of
        // FastLocalBloom's curve (sampled every 1/8 bit), about 8 of
        // Ribbon's (every 1/4 Bloom-equivalent bit), all of Cuckoo's below
        // it, 3/4 bit of BlockedBloom's grid. A donor that should give up
        // more does so over later rounds.
        while (at != kind_i->points.begin() && tried < 48) {
          --at;
          ++tried;
          const FilterChoice& smaller = *at;
          if (smaller.bits_per_key >= from.bits_per_key) continue;
          const double freed =
              shares_[i] * (from.bits_per_key - smaller.bits_per_key);
          const double left = average_ - r->memory + freed;
          for (size_t j = 0; j < n; ++j) {
            if (j == i || absent_[j] <= 0) continue;
            const FilterChoice& to = r->levels[j];
            const double offered =
                std::min(max_bits_, to.bits_per_key + left / shares_[j]);
            const double build_j =
                Find(to.kind)->model->build.Ns(to.bits_per_key);
            for (const PreparedKind& k : kinds_) {
              const FilterChoice c = BestWithin(k, offered);
              if (!(c.fpr < to.fpr)) continue;
              // Keep each level's FPR at most that of the level below.
              if (!Monotone(r->levels, i, smaller, j, c)) continue;
              const double gain = absent_[i] * (from.fpr - smaller.fpr) +
                                  absent_[j] * (to.fpr - c.fpr);
              if (gain <= best_gain) continue;
              const double build =
                  r->build_ns +
                  weights_[i] * (kind_i->model->build.Ns(smaller.bits_per_key) -
                                 build_i) +
                  weights_[j] * (k.model->build.Ns(c.bits_per_key) - build_j);
              if (build > cap) continue;
              best_gain = gain;
              best_i = i;
              best_j = j;
              new_i = smaller;
              new_j = c;
              new_build = build;
              new_memory = r->memory - freed +
                           shares_[j] * (c.bits_per_key - to.bits_per_key);
            }
          }
        }
      }
      if (new_j.bits_per_key == 0) return moved;  // no move gained enough
      moved = true;
      r->levels[best_i] = new_i;
      r->levels[best_j] = new_j;
      r->build_ns = new_build;
      r->memory = new_memory;
    }
    return moved;
  }

  const LevelCostModel& model_;
  const double average_;
  const double max_bits_;
  std::vector<PreparedKind> kinds_;
  std::vector<double> shares_;
  std::vector<double> weights_;
  std::vector<double> absent_;
  std::vector<size_t> by_density_;  // level indices, fewest probes/entry first
};

Status CheckAverage(double average_bits_per_key) {
  using Limits = LevelAllocationLimits;
  if (!(average_bits_per_key >= Limits::kMinAverageBitsPerKey &&
        average_bits_per_key <= Limits::kMaxAverageBitsPerKey)) {
    return Status::InvalidArgument(
        "average bits per key must be in 1..100, not " +
        std::to_string(average_bits_per_key));
  }
  return Status::Ok();
}

Status CheckArguments(double average_bits_per_key, double size_ratio,
                      uint32_t num_levels) {
  using Limits = LevelAllocationLimits;
  Status s = CheckAverage(average_bits_per_key);
  if (!s.ok()) return s;
  if (!(size_ratio >= Limits::kMinSizeRatio &&
        size_ratio <= Limits::kMaxSizeRatio)) {
    return Status::InvalidArgument("size ratio must be in 2..100, not " +
                                   std::to_string(size_ratio));
  }
  if (num_levels < 1 || num_levels > static_cast<uint32_t>(kMaxLevels)) {
    return Status::InvalidArgument("number of levels must be in 1.." +
                                   std::to_string(kMaxLevels) + ", not " +
                                   std::to_string(num_levels));
  }
  return Status::Ok();
}

}  // namespace

FilterChoice TableChoice(const KindModel& kind, const FilterChoice& level,
                         double density_factor, double max_bits_per_key) {
  if (!(density_factor > 0)) return level;
  // The best point of the kind within `bits`.
  auto within = [&kind](double bits) {
    if (kind.within) return kind.within(bits);
    FilterChoice best{kind.kind, 0, 0, 2};
    for (const FilterChoice& c : kind.points) {
      if (c.bits_per_key <= bits && c.fpr < best.fpr) best = c;
    }
    return best;
  };
  // The FPR's fall per bit near the level's bits, from the curve itself
  // (about ln 2 / 1.04 for Ribbon, less for Bloom kinds); at least a
  // tenth, so a flat stretch of the curve cannot send a table far.
  const double b = level.bits_per_key;
  const double fpr_below = within(b - 0.5).fpr;
  const double fpr_above = within(b + 0.5).fpr;
  const double fall = std::max(
      fpr_above > 0 && fpr_below > 0 ? std::log(fpr_below / fpr_above) : 0,
      0.1);
  const double target =
      std::clamp(b + std::log(density_factor) / fall,
                 LevelAllocation::kMinBitsPerKey, max_bits_per_key);
  // Moves of less than a quarter bit are not made: the kinds' sizes come in
  // steps of about that, and rounding every table down a step would leave
  // the level's memory unspent.
  if (std::abs(target - b) < 0.25) return level;
  if (kind.within) return kind.within(target);
  // The point nearest the target, so that over a level's tables the sizes
  // round as often up as down.
  const FilterChoice* nearest = nullptr;
  for (const FilterChoice& c : kind.points) {
    if (nearest == nullptr || std::abs(c.bits_per_key - target) <
                                  std::abs(nearest->bits_per_key - target)) {
      nearest = &c;
    }
  }
  return nearest != nullptr ? *nearest : level;
}

Status AllocateTree(const LevelCostModel& model, double average_bits_per_key,
                    const std::vector<LevelLoad>& levels_from_bottom,
                    LevelAllocation* out) {
  Status s = CheckAverage(average_bits_per_key);
  if (!s.ok()) return s;
  if (levels_from_bottom.empty()) {
    return Status::InvalidArgument("a tree needs at least one level");
  }
  double shares = 0, probes = 0;
  for (const LevelLoad& load : levels_from_bottom) {
    if (!(load.entry_share >= 0) || !(load.absent_probes >= 0) ||
        !(load.build_weight >= 0)) {
      return Status::InvalidArgument(
          "a level's entry share, absent probes and build weight must be "
          "non-negative numbers");
    }
    shares += load.entry_share;
    probes += load.absent_probes;
  }
  if (!(shares > 0) || !(probes > 0)) {
    return Status::InvalidArgument(
        "a tree needs a level with entries and a level with absent probes");
  }
  Allocator allocator(model, average_bits_per_key, levels_from_bottom);
  if (!allocator.has_kinds()) {
    return Status::InvalidArgument(
        "the cost model has no kind of filter with a size within the cap");
  }
  *out = allocator.Run();
  return Status::Ok();
}

Status AllocateLevels(const LevelCostModel& model, double average_bits_per_key,
                      double size_ratio, uint32_t num_levels,
                      LevelAllocation* out) {
  Status s = CheckArguments(average_bits_per_key, size_ratio, num_levels);
  if (!s.ok()) return s;
  return AllocateTree(model, average_bits_per_key,
                      TShapedLoads(size_ratio, num_levels, 0), out);
}

}  // namespace sstfilter
