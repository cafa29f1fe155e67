package io.headscope.model.core;

import java.util.EnumMap;
import java.util.Map;

/**
 * Which heads of an encoder-decoder are switched off: a {@link HeadMask} per {@link AttentionKind}
 * (encoder self-attention, decoder self-attention, cross-attention), each acting on its own kind's
 * patterns as a single-stack model's mask acts on its patterns (METHODS.md, "Switching heads off"). One
 * mode for all three.
 */
public record EncoderDecoderMask(Map<AttentionKind, HeadMask> masks) {
  public static final EncoderDecoderMask NONE = new EncoderDecoderMask(Map.of());

  public EncoderDecoderMask {
    EnumMap<AttentionKind, HeadMask> copy = new EnumMap<>(AttentionKind.class);
    masks.forEach((k, m) -> {
      if (!m.isEmpty()) {
        copy.put(k, m);
      }
    });
    HeadMask.Mode mode = null;
    for (HeadMask m : copy.values()) {
      if (mode != null && m.mode() != mode) {
        throw new IllegalArgumentException("one mode for every kind");
      }
      mode = m.mode();
    }
    masks = java.util.Collections.unmodifiableMap(copy);
  }

  /** The heads of one kind switched off (an empty mask when none). */
  public HeadMask of(AttentionKind kind) {
    return masks.getOrDefault(kind, HeadMask.NONE);
  }

  /** This mask with {@code kind}'s heads replaced by {@code mask}. */
  public EncoderDecoderMask with(AttentionKind kind, HeadMask mask) {
    EnumMap<AttentionKind, HeadMask> next = new EnumMap<>(AttentionKind.class);
    next.putAll(masks);
    next.put(kind, mask);
    return new EncoderDecoderMask(next);
  }

  public boolean isEmpty() {
    return masks.isEmpty();
  }
}
