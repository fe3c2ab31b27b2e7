package io.rowmatch.core;

/**
 * A vector whose buffers contradict its own metadata (a validity buffer shorter than the value count,
 * offsets that decrease or point past the data, a view entry outside its buffer...). The message names
 * the column, the side and, when found while comparing, the row, so the producer can be found.
 */
public final class MalformedVectorException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MalformedVectorException(String message) {
    super(message);
  }
}
