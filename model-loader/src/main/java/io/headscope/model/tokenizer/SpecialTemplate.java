package io.headscope.model.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import io.headscope.model.core.HeadScopeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Where a tokenizer puts its special tokens around one sentence and around a pair, read from its own
 * {@code post_processor}: {@code TemplateProcessing} (BERT, ALBERT, DistilBERT, ELECTRA as saved by
 * recent versions), {@code RobertaProcessing} ({@code <s> a </s></s> b </s>}), {@code BertProcessing},
 * and none or {@code ByteLevel} alone (GPT-2: no special tokens, every segment id 0).
 *
 * @param single the pieces of a one-sentence input, in order
 * @param pair the pieces of a two-sentence input, in order
 */
record SpecialTemplate(List<Piece> single, List<Piece> pair) {
  /** One place of a template: a special token, or where a sentence goes. */
  sealed interface Piece permits Special, Sentence {
    int typeId();
  }

  record Special(String token, long id, int typeId) implements Piece {}

  /** Sentence {@code a} ({@code first}) or {@code b}, all its tokens with one segment id. */
  record Sentence(boolean first, int typeId) implements Piece {}

  /** GPT-2: the tokens alone. Its model has no segment embedding, so {@code b} stays in segment 0. */
  static final SpecialTemplate NONE =
      new SpecialTemplate(List.of(new Sentence(true, 0)), List.of(new Sentence(true, 0), new Sentence(false, 0)));

  SpecialTemplate {
    single = List.copyOf(single);
    pair = List.copyOf(pair);
  }

  int specialCount(boolean isPair) {
    return (int) (isPair ? pair : single).stream().filter(p -> p instanceof Special).count();
  }

  /**
   * The template of {@code post_processor}; {@code idOf} gives a token's id where the processor names
   * only the token.
   */
  static SpecialTemplate of(JsonNode post, Function<String, Long> idOf, Path file) {
    if (post == null || post.isNull() || post.isMissingNode()) {
      return NONE;
    }
    String type = post.path("type").asText();
    switch (type) {
      case "ByteLevel":
        return NONE;
      case "Sequence": {
        SpecialTemplate found = NONE;
        for (JsonNode p : post.path("processors")) {
          SpecialTemplate t = of(p, idOf, file);
          if (t != NONE) {
            found = t;
          }
        }
        return found;
      }
      case "RobertaProcessing": {
        Special cls = special(post.path("cls"), 0, file);
        Special sep = special(post.path("sep"), 0, file);
        // The Rust RobertaProcessing gives every token of a pair type id 0: RoBERTa has one segment.
        return new SpecialTemplate(
            List.of(cls, new Sentence(true, 0), sep),
            List.of(cls, new Sentence(true, 0), sep, sep, new Sentence(false, 0), sep));
      }
      case "BertProcessing": {
        Special cls = special(post.path("cls"), 0, file);
        Special sep = special(post.path("sep"), 0, file);
        Special sep1 = new Special(sep.token(), sep.id(), 1);
        return new SpecialTemplate(
            List.of(cls, new Sentence(true, 0), sep),
            List.of(cls, new Sentence(true, 0), sep, new Sentence(false, 1), sep1));
      }
      case "TemplateProcessing":
        return new SpecialTemplate(
            pieces(post.path("single"), post.path("special_tokens"), idOf, file, "$A"),
            pieces(post.path("pair"), post.path("special_tokens"), idOf, file, "$A $B"));
      default:
        throw new HeadScopeException(
            file + " has a post_processor of type \"" + type + "\", which HeadScope does not read.");
    }
  }

  /** RobertaProcessing / BertProcessing write a special token as {@code ["</s>", 2]}. */
  private static Special special(JsonNode pair, int typeId, Path file) {
    if (!pair.isArray() || pair.size() != 2 || !pair.get(1).canConvertToLong()) {
      throw new HeadScopeException(file + " has a post_processor whose cls or sep is not [token, id].");
    }
    return new Special(pair.get(0).asText(), pair.get(1).asLong(), typeId);
  }

  /** @param sentences the sentences the template must hold, in order: {@code "$A"} or {@code "$A $B"} */
  private static List<Piece> pieces(
      JsonNode list, JsonNode specials, Function<String, Long> idOf, Path file, String sentences) {
    List<Piece> out = new ArrayList<>();
    for (JsonNode item : list) {
      if (item.has("Sequence")) {
        JsonNode s = item.get("Sequence");
        out.add(new Sentence(!"B".equals(s.path("id").asText()), s.path("type_id").asInt(0)));
      } else if (item.has("SpecialToken")) {
        JsonNode s = item.get("SpecialToken");
        String name = s.path("id").asText();
        int typeId = s.path("type_id").asInt(0);
        JsonNode def = specials.get(name);
        if (def != null && def.path("ids").isArray()) {
          // A template special may stand for several tokens; each is one piece.
          for (int i = 0; i < def.path("ids").size(); i++) {
            out.add(new Special(def.path("tokens").path(i).asText(name), def.path("ids").get(i).asLong(), typeId));
          }
        } else {
          Long id = idOf.apply(name);
          if (id == null) {
            throw new HeadScopeException(file + " uses the special token " + name + " but has no id for it.");
          }
          out.add(new Special(name, id, typeId));
        }
      } else {
        throw new HeadScopeException(file + " has a post_processor template entry that is neither a Sequence nor a SpecialToken.");
      }
    }
    String found = String.join(" ", out.stream()
        .filter(p -> p instanceof Sentence).map(p -> ((Sentence) p).first() ? "$A" : "$B").toList());
    if (!found.equals(sentences)) {
      throw new HeadScopeException(file + " has a post_processor template with " + (found.isEmpty() ? "no sentence"
          : found) + " where HeadScope expects " + sentences + ".");
    }
    return out;
  }
}
