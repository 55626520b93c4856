package dev.fencelock.interceptor;

import dev.fencelock.InvalidLockKeyException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpDec;
import org.springframework.expression.spel.ast.OpInc;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * Evaluates lock keys as SpEL in a deliberately small world: the method's parameters ({@code
 * #name}, {@code #p0}, {@code #a0}) and read access to their properties. Types ({@code T(...)}),
 * constructors, bean references, method calls and assignments are refused when the expression is
 * parsed, before anything runs, because a key that can call code turns every annotated method
 * into a code execution hole if part of the expression ever comes from outside.
 *
 * <p>Each expression is parsed and checked once per method and then cached.
 */
public class SpelLockKeyResolver implements LockKeyResolver {

    private final SpelExpressionParser parser = new SpelExpressionParser();

    private final ParameterNameDiscoverer parameterNames;

    private final Map<Key, CompiledKey> cache = new ConcurrentHashMap<>();

    public SpelLockKeyResolver() {
        this(new DefaultParameterNameDiscoverer());
    }

    public SpelLockKeyResolver(ParameterNameDiscoverer parameterNames) {
        this.parameterNames = parameterNames;
    }

    @Override
    public String resolve(String expression, Method method, @Nullable Object[] arguments) {
        CompiledKey key = compiled(expression, method);
        SimpleEvaluationContext context =
                SimpleEvaluationContext.forReadOnlyDataBinding().build();
        for (int i = 0; i < arguments.length; i++) {
            context.setVariable("p" + i, arguments[i]);
            context.setVariable("a" + i, arguments[i]);
            // A Kotlin suspend function's trailing continuation has no name.
            if (key.names != null && i < key.names.length && key.names[i] != null) {
                context.setVariable(key.names[i], arguments[i]);
            }
        }
        Object value;
        try {
            value = key.expression.getValue(context);
        } catch (EvaluationException ex) {
            throw new InvalidLockKeyException(
                    describe(expression, method) + " could not be evaluated: " + ex.getMessage()
                            + ". Only parameters and their properties can be used.",
                    ex);
        }
        if (value == null) {
            throw new InvalidLockKeyException(describe(expression, method)
                    + " evaluated to null; make sure the parameters it uses are not null for this call");
        }
        if (!(value instanceof CharSequence)) {
            throw new InvalidLockKeyException(describe(expression, method) + " evaluated to a "
                    + value.getClass().getName() + ", not a string; build a string such as \"'order:' + #orderId\"");
        }
        String name = value.toString();
        if (name.isEmpty()) {
            throw new InvalidLockKeyException(describe(expression, method) + " evaluated to an empty string");
        }
        return name;
    }

    @Override
    public void validate(String expression, Method method) {
        compiled(expression, method);
    }

    private CompiledKey compiled(String expression, Method method) {
        return this.cache.computeIfAbsent(new Key(method, expression), (key) -> compile(expression, method));
    }

    private CompiledKey compile(String expression, Method method) {
        SpelExpression parsed;
        try {
            parsed = this.parser.parseRaw(expression);
        } catch (ParseException ex) {
            throw new InvalidLockKeyException(
                    describe(expression, method) + " is not valid SpEL: " + ex.getMessage(), ex);
        }
        @Nullable String[] names = this.parameterNames.getParameterNames(method);
        List<String> variables = new ArrayList<>();
        check(parsed.getAST(), expression, method, variables);
        for (String variable : variables) {
            checkVariable(variable, names, expression, method);
        }
        return new CompiledKey(parsed, names);
    }

    private void check(SpelNode node, String expression, Method method, List<String> variables) {
        String refused = refusedConstruct(node);
        if (refused != null) {
            throw new InvalidLockKeyException(describe(expression, method) + " uses " + refused
                    + ", which lock keys may not. Keys can only read method parameters (#name, #p0, #a0) and their"
                    + " properties, for example \"'order:' + #orderId\"; compute anything else before the call"
                    + " and pass it as a parameter.");
        }
        if (node instanceof VariableReference) {
            variables.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            check(node.getChild(i), expression, method, variables);
        }
    }

    private static @Nullable String refusedConstruct(SpelNode node) {
        if (node instanceof TypeReference) {
            return "a type reference (T(...))";
        }
        if (node instanceof ConstructorReference) {
            return "a constructor call (new ...)";
        }
        if (node instanceof BeanReference) {
            return "a bean reference (@...)";
        }
        if (node instanceof MethodReference || node instanceof FunctionReference) {
            return "a method call (" + node.toStringAST() + ")";
        }
        if (node instanceof Assign || node instanceof OpInc || node instanceof OpDec) {
            return "an assignment";
        }
        return null;
    }

    private static void checkVariable(
            String variable, @Nullable String @Nullable [] names, String expression, Method method) {
        int count = method.getParameterCount();
        if (variable.equals("root") || variable.equals("this") || isIndexed(variable, count)) {
            return;
        }
        if (names == null) {
            throw new InvalidLockKeyException(describe(expression, method) + " refers to #" + variable
                    + ", but the parameter names of " + method.getName() + " are not available. Compile with"
                    + " -parameters (Spring Boot's Maven and Gradle plugins do this) or use #p0..#p"
                    + Math.max(0, count - 1) + " instead.");
        }
        if (!Arrays.asList(names).contains(variable)) {
            throw new InvalidLockKeyException(describe(expression, method) + " refers to #" + variable
                    + ", which is not a parameter of the method; its parameters are " + Arrays.toString(names)
                    + " (also available as #p0, #a0, ...)");
        }
    }

    private static boolean isIndexed(String variable, int count) {
        if (variable.length() < 2 || (variable.charAt(0) != 'p' && variable.charAt(0) != 'a')) {
            return false;
        }
        try {
            int index = Integer.parseInt(variable.substring(1));
            return index >= 0 && index < count && variable.equals(variable.charAt(0) + String.valueOf(index));
        } catch (NumberFormatException ex) {
            return false;
        }
    }

    private static String describe(String expression, Method method) {
        return "Lock key expression \"" + expression + "\" of @DistributedLock method "
                + LockDefinition.describe(method);
    }

    private record Key(Method method, String expression) {}

    private record CompiledKey(
            SpelExpression expression, @Nullable String @Nullable [] names) {}
}
