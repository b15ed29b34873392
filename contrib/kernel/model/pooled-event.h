/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef POOLED_EVENT_H
#define POOLED_EVENT_H

#include "ns3/event-impl.h"

#include <cstddef>
#include <new>
#include <vector>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief An event whose memory comes back to a free list of its own type instead of the
 * allocator: for the events every packet needs on every link (a frame's arrival, a port's
 * wake-up), where malloc and free were a tenth of a packet-hop in bench/README.md's profile.
 *
 * The pool is kept for the process's life and holds at most the events of that type once
 * pending at the same time; it gives its blocks back to the allocator when the process ends
 * (LeakSanitizer reported them as leaks once the free list itself was destroyed).
 *
 * \tparam Derived the event class (CRTP): one pool per class
 */
template <class Derived>
class PooledEvent : public EventImpl
{
  public:
    static void* operator new(size_t size)
    {
        std::vector<void*>& pool = Pool();
        if (pool.empty() || size != sizeof(Derived))
        {
            return ::operator new(size);
        }
        void* p = pool.back();
        pool.pop_back();
        return p;
    }

    static void operator delete(void* p, size_t size)
    {
        if (size != sizeof(Derived))
        {
            ::operator delete(p); // a further-derived class of another size
            return;
        }
        Pool().push_back(p);
    }

  private:
    /// The free blocks, owned: freed with the list at the end of the process.
    struct FreeList : std::vector<void*>
    {
        ~FreeList()
        {
            for (void* p : *this)
            {
                ::operator delete(p);
            }
        }
    };

    static std::vector<void*>& Pool()
    {
        static FreeList pool;
        return pool;
    }
};

} // namespace ns3

#endif /* POOLED_EVENT_H */
