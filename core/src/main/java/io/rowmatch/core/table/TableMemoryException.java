package io.rowmatch.core.table;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * A key table reached its allocator's limit. Extends Arrow's {@link OutOfMemoryException} so callers
 * that already handle Arrow's error keep doing so; the message names the table, the limit and how
 * many rows the table held, which is what a user needs to raise the right setting.
 */
public final class TableMemoryException extends OutOfMemoryException {
  private static final long serialVersionUID = 1L;

  TableMemoryException(String message, Throwable cause) {
    super(message, cause);
  }

  static TableMemoryException of(String kind, String table, BufferAllocator allocator, long rows, String rowNoun,
      OutOfMemoryException cause) {
    long limit = Long.MAX_VALUE;
    String limitedBy = allocator.getName();
    for (BufferAllocator a = allocator; a != null; a = a.getParentAllocator()) {
      if (a.getLimit() < limit) {
        limit = a.getLimit();
        limitedBy = a.getName();
      }
    }
    return new TableMemoryException(kind + " '" + table + "' ran out of memory holding " + rows + " " + rowNoun
        + ": the allocator limit is " + limit + " bytes (allocator '" + limitedBy + "'); raise the limit or reduce"
        + " the data per task. Arrow said: " + cause.getMessage(), cause);
  }
}
