package io.headscope.analysis.linguistics;

/**
 * A coreference mention inside one sentence: an {@code Entity=} span of CorefUD / UD English GUM.
 *
 * @param entity the entity id (the text before the first {@code -} of the opening bracket)
 * @param start the 1-based id of its first word
 * @param end the 1-based id of its last word
 * @param head the id of its head word: the first word of the span whose syntactic head lies outside it
 */
public record Mention(String entity, int start, int end, int head) {}
