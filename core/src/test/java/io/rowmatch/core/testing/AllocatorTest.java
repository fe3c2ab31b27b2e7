package io.rowmatch.core.testing;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test with a fresh {@link RootAllocator} per test method, closed after it: closing fails the test when
 * a buffer leaked. A subclass's own {@code @AfterEach} runs first, so it can release what it holds.
 */
public abstract class AllocatorTest {
  protected BufferAllocator allocator;

  @BeforeEach
  protected final void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  protected final void closeAllocator() {
    allocator.close();
  }
}
