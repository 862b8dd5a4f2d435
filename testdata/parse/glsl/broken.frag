void main() {
    vec4 base = texture(tex, uv;
    fragColor = 
