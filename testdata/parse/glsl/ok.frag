#version 330 core
// Shades a textured quad.
in vec2 uv;
out vec4 fragColor;

uniform sampler2D tex;
uniform float time;

vec3 tint(vec3 c, float t) {
    return c * (0.5 + 0.5 * sin(t));
}

void main() {
    vec4 base = texture(tex, uv);
    if (base.a < 0.1) {
        discard;
    }
    fragColor = vec4(tint(base.rgb, time), base.a);
}
