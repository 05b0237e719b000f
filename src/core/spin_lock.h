#pragma once
// A lock for critical sections of a few hash-map operations that threads take very often (the
// serving chooser's shared evaluation caches): a contended std::mutex puts the waiter to sleep in
// the kernel and wakes it again (a futex wait and a context switch, microseconds) for a wait that is
// shorter than that. The waiter spins with the CPU's pause hint and yields the core after a while,
// so a holder that was descheduled still runs. Meets BasicLockable (std::lock_guard, unique_lock).
#include <atomic>
#include <thread>

namespace gpuplan {

class SpinLock {
 public:
  void lock() noexcept {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) pause();
        else std::this_thread::yield();
      }
    }
  }
  bool try_lock() noexcept { return !locked_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  std::atomic<bool> locked_{false};
};

}  // namespace gpuplan
