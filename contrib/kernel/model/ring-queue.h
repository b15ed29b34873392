/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RING_QUEUE_H
#define RING_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A FIFO in a power-of-two circular buffer that allocates nothing until its first push.
 *
 * Why not std::deque: libstdc++'s deque allocates a 64-byte map and a 512-byte block when it is
 * constructed, empty or not. Every port has a queue per traffic class (8 on RoCEv2, up to 16 VLs
 * on InfiniBand), most of which never hold a frame; at k=32 (49,152 ports) the empty deques took
 * about 450 MB (heaptrack, issue 9). This one costs 24 bytes while empty, and its push and pop
 * are a masked index instead of deque's block bookkeeping.
 *
 * T must be default-constructible and movable; a popped slot is reset to T(), so a queue of
 * Ptr<Packet> holds no reference to a frame it has handed out. The buffer halves when a pop
 * leaves it less than a quarter full, and clear() frees it: a queue that once held a burst (an
 * incast, a PFC pause) does not keep the burst's memory for the rest of a long run (issue 10's
 * soak). Halving at a quarter leaves it half full, so a queue hovering at one size does not
 * reallocate on every push and pop.
 */
template <typename T>
class RingQueue
{
  public:
    /// Iterates the elements front to back (read only).
    class ConstIterator
    {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        ConstIterator(const RingQueue* q, std::size_t i)
            : m_q(q),
              m_i(i)
        {
        }

        const T& operator*() const
        {
            return (*m_q)[m_i];
        }

        const T* operator->() const
        {
            return &(*m_q)[m_i];
        }

        ConstIterator& operator++()
        {
            ++m_i;
            return *this;
        }

        bool operator==(const ConstIterator& o) const
        {
            return m_i == o.m_i;
        }

        bool operator!=(const ConstIterator& o) const
        {
            return m_i != o.m_i;
        }

      private:
        const RingQueue* m_q;
        std::size_t m_i;
    };

    RingQueue() = default;

    RingQueue(const RingQueue& o)
    {
        for (const T& v : o)
        {
            push_back(v);
        }
    }

    RingQueue(RingQueue&& o) noexcept
    {
        swap(o);
    }

    RingQueue& operator=(RingQueue o) noexcept
    {
        swap(o);
        return *this;
    }

    bool empty() const
    {
        return m_size == 0;
    }

    std::size_t size() const
    {
        return m_size;
    }

    /// Slots allocated (a power of two, or 0 before the first push).
    std::size_t capacity() const
    {
        return std::size_t{m_mask} + (m_data ? 1 : 0);
    }

    T& front()
    {
        return m_data[m_head];
    }

    const T& front() const
    {
        return m_data[m_head];
    }

    T& back()
    {
        return (*this)[m_size - 1];
    }

    /// \param i position from the front, < size()
    T& operator[](std::size_t i)
    {
        return m_data[(m_head + i) & m_mask];
    }

    const T& operator[](std::size_t i) const
    {
        return m_data[(m_head + i) & m_mask];
    }

    void push_back(T v)
    {
        if (m_size == capacity())
        {
            Grow();
        }
        m_data[(m_head + m_size) & m_mask] = std::move(v);
        ++m_size;
    }

    void pop_front()
    {
        m_data[m_head] = T();
        m_head = static_cast<uint32_t>((m_head + 1) & m_mask);
        --m_size;
        if (m_mask >= FIRST_CAPACITY && m_size < (std::size_t{m_mask} + 1) / 4)
        {
            Reallocate((std::size_t{m_mask} + 1) / 2);
        }
    }

    /// Remove every element and free the buffer.
    void clear()
    {
        RingQueue().swap(*this);
    }

    void swap(RingQueue& o) noexcept
    {
        std::swap(m_data, o.m_data);
        std::swap(m_mask, o.m_mask);
        std::swap(m_head, o.m_head);
        std::swap(m_size, o.m_size);
    }

    ConstIterator begin() const
    {
        return ConstIterator(this, 0);
    }

    ConstIterator end() const
    {
        return ConstIterator(this, m_size);
    }

  private:
    // Four slots first: a class that carries traffic usually holds a few frames.
    static constexpr std::size_t FIRST_CAPACITY = 4;

    void Grow()
    {
        Reallocate(m_data ? 2 * capacity() : FIRST_CAPACITY);
    }

    /// Move the elements to the front of a new buffer of n slots (n >= size(), a power of two).
    void Reallocate(std::size_t n)
    {
        std::unique_ptr<T[]> data(new T[n]);
        for (std::size_t i = 0; i < m_size; ++i)
        {
            data[i] = std::move((*this)[i]);
        }
        m_data = std::move(data);
        m_mask = static_cast<uint32_t>(n - 1);
        m_head = 0;
    }

    std::unique_ptr<T[]> m_data;
    // 32 bits, as m_size: the compiler then knows new T[n] cannot overflow (with a 64-bit mask
    // GCC's link-time optimiser warned of a 2^64-byte allocation on an unreachable path).
    uint32_t m_mask{0};
    uint32_t m_head{0};
    uint32_t m_size{0};
};

} // namespace ns3

#endif /* RING_QUEUE_H */
