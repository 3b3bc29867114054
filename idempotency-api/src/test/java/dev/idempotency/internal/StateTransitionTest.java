package dev.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.KeyState;
import dev.idempotency.internal.StateTransition.TransitionCause;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateTransitionTest {

  /**
   * The table holds exactly the documented moves, and every other (from, to, cause) is refused by
   * name.
   */
  @Test
  void tableHasExactlyTheDocumentedTransitions() {
    Set<StateTransition> legal = EnumSet.noneOf(StateTransition.class);
    for (KeyState from : KeyState.values()) {
      for (KeyState to : KeyState.values()) {
        for (TransitionCause cause : TransitionCause.values()) {
          if (StateTransition.isLegal(from, to, cause)) {
            legal.add(StateTransition.of(from, to, cause));
          } else {
            IllegalStateTransitionException e =
                catchThrowableOfType(
                    IllegalStateTransitionException.class,
                    () -> StateTransition.of(from, to, cause));
            assertThat(e.from()).isEqualTo(from);
            assertThat(e.to()).isEqualTo(to);
            assertThat(e).hasMessageContaining(from + " -> " + to);
          }
        }
      }
    }
    assertThat(legal).containsExactlyInAnyOrder(StateTransition.values());
  }

  @Test
  void completedResultsCannotBeRewrittenNorRerunWithinTheWindow() {
    assertThat(
            StateTransition.isLegal(KeyState.COMPLETE, KeyState.COMPLETE, TransitionCause.COMPLETE))
        .isFalse();
    assertThat(
            StateTransition.isLegal(KeyState.COMPLETE, KeyState.IN_FLIGHT, TransitionCause.CLAIM))
        .isFalse();
    assertThat(
            StateTransition.isLegal(KeyState.ABSENT, KeyState.COMPLETE, TransitionCause.COMPLETE))
        .isFalse();
    assertThat(StateTransition.of(KeyState.IN_FLIGHT, KeyState.IN_FLIGHT, TransitionCause.CLAIM))
        .isEqualTo(StateTransition.TAKE_OVER);
  }
}
