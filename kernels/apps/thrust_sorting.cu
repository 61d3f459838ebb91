// kernels/apps: more of Thrust (issue 14): sorts with a user comparator (merge sort, stable), of
// structs and of zipped key pairs, doubles descending; merge, set_intersection and set_difference
// of sorted ranges; unique_by_key; a vectorized lower_bound; and thrust::random in tabulate. Every
// result is compared with the same computation on the host.
#include "app_check.h"

#include <algorithm>
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/random.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <vector>

struct Point {
  float x, y;
};

struct ByY {
  __host__ __device__ bool operator()(const Point &a, const Point &b) const {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
  }
};

struct AbsLess {
  __host__ __device__ bool operator()(int a, int b) const { return abs(a) < abs(b); }
};

struct UniformAt {
  __host__ __device__ float operator()(int i) const {
    thrust::default_random_engine e(1234);
    e.discard(i);
    thrust::uniform_real_distribution<float> d(0, 1);
    return d(e);
  }
};

int main() {
  Verdict v;
  Random rng(7);
  const int n = 30000;
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (int)rng.range(-5000, 5000);
    b[i] = (int)rng.range(-5000, 5000);
  }
  // custom comparator sort -> merge sort
  thrust::device_vector<int> d(a.begin(), a.end());
  thrust::stable_sort(d.begin(), d.end(), AbsLess());
  std::vector<int> r = a;
  std::stable_sort(r.begin(), r.end(), AbsLess());
  thrust::host_vector<int> h = d;
  v.expect(std::equal(r.begin(), r.end(), h.begin()), "stable_sort custom comparator");
  // struct sort
  std::vector<Point> pts(n);
  for (auto &p : pts) {
    p.x = (float)rng.range(0, 100);
    p.y = (float)rng.range(0, 100);
  }
  thrust::device_vector<Point> dp(pts.begin(), pts.end());
  thrust::sort(dp.begin(), dp.end(), ByY());
  std::sort(pts.begin(), pts.end(), ByY());
  thrust::host_vector<Point> hp = dp;
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= hp[i].x == pts[i].x && hp[i].y == pts[i].y;
  v.expect(ok, "struct sort");
  // zip sort
  thrust::device_vector<int> k1(a.begin(), a.end()), k2(b.begin(), b.end());
  thrust::sort(thrust::make_zip_iterator(thrust::make_tuple(k1.begin(), k2.begin())),
               thrust::make_zip_iterator(thrust::make_tuple(k1.end(), k2.end())));
  std::vector<std::pair<int, int>> pr(n);
  for (int i = 0; i < n; ++i) pr[i] = {a[i], b[i]};
  std::sort(pr.begin(), pr.end());
  thrust::host_vector<int> h1 = k1, h2 = k2;
  ok = true;
  for (int i = 0; i < n; ++i) ok &= h1[i] == pr[i].first && h2[i] == pr[i].second;
  v.expect(ok, "zip sort");
  // merge, set ops
  std::vector<int> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  thrust::device_vector<int> da(sa.begin(), sa.end()), db(sb.begin(), sb.end()), out(2 * n);
  auto e = thrust::merge(da.begin(), da.end(), db.begin(), db.end(), out.begin());
  std::vector<int> m(2 * n);
  std::merge(sa.begin(), sa.end(), sb.begin(), sb.end(), m.begin());
  thrust::host_vector<int> ho(out.begin(), e);
  v.expect(std::equal(m.begin(), m.end(), ho.begin()) && ho.size() == m.size(), "merge");
  e = thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(), out.begin());
  std::vector<int> si;
  std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(si));
  thrust::host_vector<int> hs(out.begin(), e);
  v.expect(hs.size() == si.size() && std::equal(si.begin(), si.end(), hs.begin()),
           "set_intersection %zu vs %zu", hs.size(), si.size());
  e = thrust::set_difference(da.begin(), da.end(), db.begin(), db.end(), out.begin());
  std::vector<int> sd;
  std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(sd));
  thrust::host_vector<int> hd(out.begin(), e);
  v.expect(hd.size() == sd.size() && std::equal(sd.begin(), sd.end(), hd.begin()), "set_difference");
  // unique_by_key
  thrust::device_vector<int> uk(sa.begin(), sa.end()), uv(n);
  thrust::sequence(uv.begin(), uv.end());
  auto ue = thrust::unique_by_key(uk.begin(), uk.end(), uv.begin());
  std::vector<int> uu = sa;
  uu.erase(std::unique(uu.begin(), uu.end()), uu.end());
  v.expect((size_t)(ue.first - uk.begin()) == uu.size(), "unique_by_key");
  // lower_bound vectorized
  thrust::device_vector<int> q(b.begin(), b.end()), pos(n);
  thrust::lower_bound(da.begin(), da.end(), q.begin(), q.end(), pos.begin());
  thrust::host_vector<int> hpos = pos;
  ok = true;
  for (int i = 0; i < n; ++i)
    ok &= hpos[i] == (int)(std::lower_bound(sa.begin(), sa.end(), b[i]) - sa.begin());
  v.expect(ok, "lower_bound");
  // doubles sort descending, long long reduce
  std::vector<double> dd(n);
  for (auto &x : dd) x = rng.uniform(-1, 1);
  thrust::device_vector<double> ddv(dd.begin(), dd.end());
  thrust::sort(ddv.begin(), ddv.end(), thrust::greater<double>());
  std::sort(dd.begin(), dd.end(), std::greater<double>());
  thrust::host_vector<double> hdd = ddv;
  v.expect(std::equal(dd.begin(), dd.end(), hdd.begin()), "double sort");
  // random tabulate
  thrust::device_vector<float> rv(1000);
  thrust::tabulate(rv.begin(), rv.end(), UniformAt());
  thrust::host_vector<float> hr = rv;
  ok = true;
  for (int i = 0; i < 1000; ++i) ok &= hr[i] == UniformAt()(i);
  v.expect(ok, "random tabulate");
  return v.finish();
}
